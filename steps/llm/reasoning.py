"""The one rule that tells a reply's reasoning from its answer.

Reasoning models put their reasoning in the text, between `<think>` and `</think>`, or in a separate field
(litellm's `reasoning_content`). What remains once the reasoning is removed is the answer; it is the only part
that is routed, parsed or scored. The forms met in practice, all handled by `split_reasoning`:

- closed blocks, `<think>…</think>answer` (one or several);
- an unclosed block, `answer? <think>…` to the end: the reply was cut off while reasoning (at max_tokens);
- only a closing tag, `…</think>answer`: the chat template opened the block in the prompt, so the reply starts
  inside it;
- a `reasoning_content` field beside the text (which then holds only the answer).

`separate` is the one function every reply passes through: the model door splits each reply with it, so that
`Completion.text` is the answer and `Completion.reasoning` the trace, for every caller (scorers, judges, parsers,
the other roles of a dialogue), and the trace is kept in the run tables' `reasoning` columns.

A reply with no answer is not text to score: cut at max_tokens it is a failed call (steps/llm/errors.py); ended
by the model itself it is its own empty answer, the outcome kind `empty_answer` (steps/llm/results.py; a dialogue
ends on it, `EndReason.EMPTY_REPLY`; see docs/failures.md for each benchmark).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OPEN, CLOSE = "<think>", "</think>"
_CLOSED = re.compile(r"<think>.*?</think>", re.S)


@dataclass(frozen=True)
class Split:
    """A reply as reasoning and answer (both stripped). `cut_off`: a reasoning block that never closed."""

    reasoning: str
    answer: str
    cut_off: bool = False


def split_reasoning(text: str | None, reasoning_content: str | None = None) -> Split:
    """Split `text` (and litellm's separate `reasoning_content`, if any) into its reasoning and its answer."""
    text = text or ""
    parts = [reasoning_content.strip()] if reasoning_content and reasoning_content.strip() else []
    head, found, rest = text.partition(CLOSE)
    if found and OPEN not in head:  # the first block closes but opened in the prompt: all before it is reasoning
        parts.append(head.strip())
        text = rest
    parts += [m.group(0)[len(OPEN) : -len(CLOSE)].strip() for m in _CLOSED.finditer(text)]
    answer = _CLOSED.sub("", text)
    cut_off = OPEN in answer
    if cut_off:  # reasoning that never closed runs to the end of the reply
        answer, _, unclosed = answer.partition(OPEN)
        parts.append(unclosed.strip())
    return Split("\n\n".join(p for p in parts if p), answer.strip(), cut_off)


def strip_reasoning(text: str | None) -> str:
    """The answer of `text`: what remains once every reasoning trace is removed (stripped)."""
    return split_reasoning(text).answer


def separate(text: str | None, reasoning_content: str | None = None) -> tuple[str, str]:
    """The one function every reply passes through (the model door calls it; steps/llm/door.py): `(answer, trace)`.

    A reply with no trace (no `<think>`/`</think>` tag, no `reasoning_content`) is its own answer, unchanged (not
    even stripped, so that what was scored before is scored the same); otherwise the answer and trace of
    `split_reasoning`. The trace is `""` when there is none.
    """
    text = text or ""
    if OPEN not in text and CLOSE not in text and not (reasoning_content and reasoning_content.strip()):
        return text, ""
    split = split_reasoning(text, reasoning_content)
    return split.answer, split.reasoning


def with_reasoning(content: str | None, reasoning_content: str | None) -> str:
    """One text holding a reply's answer and the reasoning its API returned in a separate field: the field as a
    leading `<think>` block, so that `separate` gives both back (the response cache stores one text per reply)."""
    content = content or ""
    if not (reasoning_content and reasoning_content.strip()):
        return content
    return f"{OPEN}{reasoning_content}{CLOSE}{content}"

"""LawBench's input limit: a prompt over `lawbench.max_input_tokens` tokens is cut to that many, keeping its
beginning (the paper, §4 Experiment setup: "We set the input token length limit to 2048 and an output token length
to 1024. Right truncation is performed for input prompts exceeding the length limitation"; right truncation, as in
Hugging Face tokenizers' `truncation_side="right"`, drops the tokens on the right, i.e. the end of the prompt).

Tokens are counted by the served model's own tokenizer when its server exposes one (vLLM's or llama.cpp's
`/tokenize`, steps.llm.tokenizer), else by the character rule: one token per character. A Chinese character is
about one token for tokenizers with a Chinese vocabulary (Qwen, ChatGLM, Baichuan, InternLM: 1–1.5 characters a
token, so the rule keeps at most the tokens allowed, cutting somewhat earlier than the paper did); a byte-level
tokenizer without one (LLaMA-1, GPT-4's cl100k_base) takes 1–3 tokens a character, so for those models the rule
keeps up to ~3× the paper's tokens. API models (no `/tokenize`) and scripted/* models use the character rule. The
limit applies to the prompt text (the user message), not to the few tokens the server's chat template adds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

Side = Literal["right", "left"]  # right: drop the end (keep the beginning), as the paper; left: drop the beginning
CHARACTERS = "characters"  # the rule's name in predictions tables and run.json


class Tokenizer(Protocol):
    """What truncation needs of a tokenizer (steps.llm.tokenizer.ServerTokenizer is one)."""

    @property
    def rule(self) -> str: ...

    def encode(self, text: str) -> list[int]: ...

    def decode(self, tokens: list[int]) -> str: ...


@dataclass(frozen=True)
class Cut:
    """One prompt as sent: its text, its tokens before the cut, whether it was cut, and by which rule."""

    text: str
    tokens: int
    truncated: bool
    rule: str


def _kept(prompt: str, decoded: str, side: Side) -> str:
    """The kept text: the decoded tokens without a partial character where they were cut (a multi-byte character
    cut inside shows as U+FFFD), and exactly a prefix (`right`) or suffix (`left`) of the prompt when the decoded
    text is one."""
    if side == "right":
        decoded = decoded.rstrip("\ufffd")
        return decoded if prompt.startswith(decoded) else prompt[: len(decoded)]
    decoded = decoded.lstrip("\ufffd")
    return decoded if prompt.endswith(decoded) else prompt[len(prompt) - len(decoded) :]


def cut_prompt(prompt: str, limit: int | None, tokenizer: Tokenizer | None = None, side: Side = "right") -> Cut:
    """`prompt` within `limit` tokens (None: no limit); `right` truncation keeps its beginning, `left` its end; by
    `tokenizer`, else one token per character."""
    if tokenizer is None:
        n = len(prompt)
        if limit is None or n <= limit:
            return Cut(prompt, n, False, CHARACTERS)
        return Cut(prompt[:limit] if side == "right" else prompt[n - limit :], n, True, CHARACTERS)
    tokens = tokenizer.encode(prompt)
    if limit is None or len(tokens) <= limit:
        return Cut(prompt, len(tokens), False, tokenizer.rule)
    kept = tokens[:limit] if side == "right" else tokens[len(tokens) - limit :]
    return Cut(_kept(prompt, tokenizer.decode(kept), side), len(tokens), True, tokenizer.rule)


def cut_prompts(
    prompts: list[str], limit: int | None, tokenizer: Tokenizer | None = None, side: Side = "right"
) -> list[Cut]:
    """Every prompt within `limit` tokens (see `cut_prompt`)."""
    return [cut_prompt(p, limit, tokenizer, side) for p in prompts]

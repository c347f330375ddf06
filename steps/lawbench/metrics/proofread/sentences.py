"""The three sentences of one 2-1 item: source from the prompt, hypothesis and reference (spec §6.1)."""

from __future__ import annotations

from steps.lawbench.metrics.result import ScoringError

SENTENCE_MARKER = "句子：\n"
# Hypotheses longer than the reference by more than this many characters are cut (LawBench's rule).
TRUNCATION_MARGIN = 5
EMPTY_HYPOTHESIS = "无内容"


def _without_line_breaks(text: str) -> str:
    return text.replace("\n", "").replace("\t", "")


def source_sentence(idx: int, prompt: str) -> str:
    """The line after the first `句子：\\n` of the prompt sent to the model.

    For chat-templated prompt strings the template tail on that line (e.g. Qwen's `<|im_end|>`) is part of
    the source; LawBench's published 2-1 scores include it, so it is kept on purpose.
    """
    if SENTENCE_MARKER not in prompt:
        raise ScoringError(f"task 2-1 item {idx}: prompt has no {SENTENCE_MARKER!r} line")
    return _without_line_breaks(prompt.split(SENTENCE_MARKER, 1)[1].split("\n", 1)[0])


def hypothesis_sentence(prediction: str, reference: str) -> str:
    """Prediction without line breaks/tabs, cut to len(reference) + 5 characters, `无内容` if empty."""
    text = _without_line_breaks(prediction)[: len(reference) + TRUNCATION_MARGIN]
    return text or EMPTY_HYPOTHESIS


def reference_sentence(reference: str) -> str:
    """Reference without line breaks/tabs."""
    return _without_line_breaks(reference)

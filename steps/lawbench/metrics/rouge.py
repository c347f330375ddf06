"""ROUGE-L F with rouge-chinese 1.0.3 semantics on jieba words (spec §4.5): tasks 1-1, 2-7, 3-2, 3-8."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from functools import cache, lru_cache

import jieba

from steps.lawbench.metrics.result import ScoringError, TaskScore, mean_score, require_items

# Substitute for hypotheses that are empty after segmentation (LawBench's own rule; references never are).
EMPTY_HYPOTHESIS = "无内容"

# rouge-chinese's sentence cutter, applied in this order to the space-joined jieba output.
_SENTENCE_BREAKS = (
    (re.compile(r"([。！？?])([^”’])"), "\\1\n\\2"),
    (re.compile(r"(\.{6})([^”’])"), "\\1\n\\2"),
    (re.compile(r"(…{2})([^”’])"), "\\1\n\\2"),
    (re.compile(r"([。！？?][”’])([^，。！？?])"), "\\1\n\\2"),
)


@cache
def _jieba() -> jieba.Tokenizer:
    jieba.setLogLevel(logging.WARNING)
    jieba.dt.initialize()
    return jieba.dt


def load_dictionary() -> None:
    """Load jieba's dictionary now (0.6 s of CPU) rather than on the first segmentation: the stage server does, so
    that the stages it forks start with it."""
    _jieba()


def segment(text: str) -> str:
    """jieba 0.42.1 default segmentation joined by single spaces (whitespace chars become tokens too)."""
    return " ".join(_jieba().cut(text))


def rouge_words(joined: str) -> list[str]:
    """rouge-chinese's word list: cut sentences, collapse whitespace per sentence, then split on spaces.

    A whitespace-only sentence becomes one empty-string word; these count in lengths and can match each
    other (rouge-chinese behaviour, reproduced on purpose).
    """
    for pattern, repl in _SENTENCE_BREAKS:
        joined = pattern.sub(repl, joined)
    sentences = [" ".join(s.split()) for s in joined.rstrip().split("\n") if len(s) > 0]
    return [word for s in sentences for word in s.split(" ")]


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence, bit-parallel over Python integers (Hyyrö 2004)."""
    if len(a) < len(b):
        a, b = b, a
    masks: dict[str, int] = {}
    for i, word in enumerate(a):
        masks[word] = masks.get(word, 0) | (1 << i)
    full = (1 << len(a)) - 1
    row = full
    for word in b:
        match = row & masks.get(word, 0)
        row = ((row + match) | (row - match)) & full
    return len(a) - row.bit_count()


def rouge_l_f(hypothesis_words: Sequence[str], reference_words: Sequence[str]) -> float:
    """rouge-chinese's F: 2 * (P*R / (P + R + 1e-8)), with the same operation order."""
    if not reference_words:
        raise ScoringError("ROUGE-L needs a non-empty reference")
    common = lcs_length(reference_words, hypothesis_words)
    recall = common / len(reference_words)
    precision = common / len(hypothesis_words)
    return 2.0 * ((precision * recall) / (precision + recall + 1e-8))


@lru_cache(maxsize=4096)
def _reference_words(reference: str) -> tuple[str, ...]:
    # References repeat across models of one setting; segmenting each once saves a third of the time.
    return tuple(rouge_words(segment(reference)))


def rouge_l(hypothesis: str, reference: str) -> float:
    """ROUGE-L F of one raw hypothesis against one raw reference."""
    joined = segment(hypothesis)
    hypothesis_words = rouge_words(EMPTY_HYPOTHESIS if joined.strip() == "" else joined)
    return rouge_l_f(hypothesis_words, _reference_words(reference))


def _score(task: str, predictions: Sequence[str], references: Sequence[str]) -> TaskScore:
    return mean_score(task, [rouge_l(p, r) for p, r in zip(predictions, references, strict=True)])


def score_article_recitation(predictions: Sequence[str], references: Sequence[str]):
    """1-1: every `答案:` is removed from the reference; the prediction is used raw."""
    require_items("1-1", predictions, references)
    return _score("1-1", predictions, [r.replace("答案:", "") for r in references])


def score_opinion_summary(predictions: Sequence[str], references: Sequence[str]):
    """2-7: raw prediction against raw reference."""
    require_items("2-7", predictions, references)
    return _score("2-7", predictions, references)


def score_scene_articles(predictions: Sequence[str], references: Sequence[str]):
    """3-2: raw prediction against raw reference."""
    require_items("3-2", predictions, references)
    return _score("3-2", predictions, references)


def score_consultation(predictions: Sequence[str], references: Sequence[str]):
    """3-8: raw prediction against the raw reference, whose `回答:` prefix is kept (unlike 1-1)."""
    require_items("3-8", predictions, references)
    return _score("3-8", predictions, references)

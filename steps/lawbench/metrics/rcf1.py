"""CJRC character F1 ("rc-F1", spec §4.4), task 2-5 reading comprehension and 2-10 trigger words."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from steps.lawbench.metrics.result import TaskScore, mean_score, require_items


def rc_tokens(text: str) -> list[str]:
    """Lower-cased single characters that Python calls alphabetic or digits; punctuation and spaces go."""
    return [ch for ch in text.lower() if ch.isdigit() or ch.isalpha()] if text else []


def rc_f1(gold: str, prediction: str) -> float:
    """Character-bag F1 of the CAIL2019/CJRC evaluator; two empty token lists score 1, one empty list 0."""
    gold_tokens, pred_tokens = rc_tokens(gold), rc_tokens(prediction)
    if not gold_tokens or not pred_tokens:
        return float(gold_tokens == pred_tokens)
    common = sum((Counter(gold_tokens) & Counter(pred_tokens)).values())
    if common == 0:
        return 0.0
    precision = common / len(pred_tokens)
    recall = common / len(gold_tokens)
    return (2 * precision * recall) / (precision + recall)


def score_reading_comprehension(predictions: Sequence[str], references: Sequence[str]) -> TaskScore:
    """2-5: rc-F1 of the raw prediction against the reference without its `回答:` (only the gold is cleaned)."""
    require_items("2-5", predictions, references)
    values = [rc_f1(r.replace("回答:", ""), p) for p, r in zip(predictions, references, strict=True)]
    return mean_score("2-5", values)


def positional_soft_f1(gold: str, prediction: str) -> float:
    """2-10 per item: `;`-split lists paired by position, rc-F1 per pair, F with the official +1e-10.

    Only ASCII `;` separates (a prediction using `；` is one item) and order matters; both deliberate.
    """
    gold_items, pred_items = gold.split(";"), prediction.split(";")
    matched = sum(rc_f1(g, p) for g, p in zip(gold_items, pred_items, strict=False))
    precision = matched / len(pred_items)
    recall = matched / len(gold_items)
    return 2 * precision * recall / (precision + recall + 1e-10)


def score_trigger_words(predictions: Sequence[str], references: Sequence[str]) -> TaskScore:
    """2-10: mean positional soft F1; no abstention."""
    require_items("2-10", predictions, references)
    values = [positional_soft_f1(r, p) for p, r in zip(predictions, references, strict=True)]
    return mean_score("2-10", values)

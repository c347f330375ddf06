"""Tasks 3-4/3-5 prison term prediction: normalised log distance in months (spec §5, 3-4/3-5)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from steps.lawbench.metrics.numerals import to_arabic
from steps.lawbench.metrics.result import ScoringError, TaskScore, require_items, strip_prefix

# An abstention costs ln 216 (the distance of a 215-month error from 0), which is also the normaliser.
ABSTENTION_DISTANCE = math.log(216)
_MONTHS = re.compile(r"\d+个月")
_MONTHS_SHORT = re.compile(r"\d+月")
_YEARS = re.compile(r"\d+年")


def predicted_months(prediction: str) -> int | None:
    """The first `N个月`, else the first `N月`, else 12 x the first `N年`, after numeral conversion; None if none.

    Nothing is summed (`一年六个月` -> 6) and `1.5年` reads as 5 years; deliberate, for parity.
    """
    text = to_arabic(prediction)
    months = [int(m[:-2]) for m in _MONTHS.findall(text)] + [int(m[:-1]) for m in _MONTHS_SHORT.findall(text)]
    if months:
        return months[0]
    years = _YEARS.findall(text)
    return int(years[0][:-1]) * 12 if years else None


def _gold_months(task: str, idx: int, reference: str) -> int | None:
    """Gold months, or None for the death/life-sentence rows that the official scorer skips."""
    if "死刑" in reference or "无期" in reference:
        return None
    body = strip_prefix(task, idx, reference, "刑期:")
    if not body.endswith("个月"):
        raise ScoringError(f"task {task} item {idx}: reference {reference!r} does not end with '个月'")
    return int(body.replace("刑期:", "").replace("个月", ""))


def score_prison_term(task: str, predictions: Sequence[str], references: Sequence[str]) -> TaskScore:
    """Score = (ln 216 - mean distance) / ln 216 over non-skipped items; unclipped, so it can go below 0."""
    distances: list[float | None] = []
    abstained: list[bool] = []
    for idx, (prediction, reference) in enumerate(zip(predictions, references, strict=True)):
        gold = _gold_months(task, idx, reference)
        if gold is None:
            distances.append(None)
            abstained.append(False)
            continue
        months = predicted_months(prediction)
        abstained.append(months is None)
        distances.append(ABSTENTION_DISTANCE if months is None else abs(math.log(gold + 1) - math.log(months + 1)))
    scored = [d for d in distances if d is not None]
    if not scored:
        raise ScoringError(f"task {task}: every item was skipped by the task's rule; there is nothing to average")
    mean_distance = sum(scored) / len(scored)
    return TaskScore(
        task=task,
        score=(ABSTENTION_DISTANCE - mean_distance) / ABSTENTION_DISTANCE,
        abstention_rate=sum(abstained) / len(distances),
        n=len(distances),
        item_scores=tuple(None if d is None else (ABSTENTION_DISTANCE - d) / ABSTENTION_DISTANCE for d in distances),
        abstained=tuple(abstained),
        detail={"log_distances": tuple(distances)},
    )


def score_prison_term_without_articles(predictions: Sequence[str], references: Sequence[str]) -> TaskScore:
    """3-4."""
    require_items("3-4", predictions, references)
    return score_prison_term("3-4", predictions, references)


def score_prison_term_with_articles(predictions: Sequence[str], references: Sequence[str]) -> TaskScore:
    """3-5 (same rule as 3-4)."""
    require_items("3-5", predictions, references)
    return score_prison_term("3-5", predictions, references)

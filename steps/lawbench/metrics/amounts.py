"""Task 3-7 criminal damages: the gold amount must equal one of the numbers in the output (spec §5, 3-7)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from steps.lawbench.metrics.result import ScoringError, TaskScore, mean_score, require_items, strip_prefix

_NUMBER = re.compile(r"\d+\.?\d*")


def gold_amount(idx: int, reference: str) -> float:
    """`上文涉及到的犯罪金额:8500.0元。` -> 8500.0."""
    body = strip_prefix("3-7", idx, reference, "上文涉及到的犯罪金额:")
    try:
        return float(body.replace("上文涉及到的犯罪金额:", "").replace("元。", ""))
    except ValueError:
        raise ScoringError(f"task 3-7 item {idx}: reference {reference!r} holds no amount") from None


def score_damages(predictions: Sequence[str], references: Sequence[str]) -> TaskScore:
    """3-7: right iff any number in the prediction equals the gold; abstention = no number at all.

    No numeral conversion, so 八千五百元 abstains and `8,500` reads as 8 and 500; deliberate, for parity.
    """
    require_items("3-7", predictions, references)
    values: list[float | None] = []
    abstained: list[bool] = []
    for idx, (prediction, reference) in enumerate(zip(predictions, references, strict=True)):
        numbers = [float(x) for x in _NUMBER.findall(prediction)]
        values.append(1.0 if gold_amount(idx, reference) in numbers else 0.0)
        abstained.append(not numbers)
    return mean_score("3-7", values, abstained)

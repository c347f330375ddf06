"""Task 3-1 fact-based article prediction: set F1 over criminal-law article numbers (spec §5, 3-1)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from steps.lawbench.metrics.numerals import to_arabic
from steps.lawbench.metrics.result import ScoringError, TaskScore, mean_score, require_items, strip_prefix
from steps.lawbench.metrics.setf1 import set_f1

_CLAUSE = re.compile(r"第(.*?)款")
_ARTICLE = re.compile(r"第(.*?)条")
_NUMBER = re.compile(r"\d+")


def gold_articles(idx: int, reference: str) -> set[int]:
    """`法条:刑法第a、b条` -> {a, b}."""
    body = strip_prefix("3-1", idx, reference, "法条:刑法第").replace("法条:刑法第", "").replace("条", "")
    try:
        return {int(x) for x in body.split("、")}
    except ValueError:
        raise ScoringError(f"task 3-1 item {idx}: reference {reference!r} is not a list of article numbers") from None


def predicted_articles(prediction: str) -> set[int]:
    """The first number of each `、`-separated chunk after the official clean-up.

    Per chunk: 万元 -> 元, delete `第…款` (which can eat an article number: `第264条第一款` -> nothing), unwrap
    `第…条`, convert Chinese numerals, keep only the first digit run (a year such as 2016 counts). Deliberate.
    """
    found: set[int] = set()
    for chunk in prediction.split("、"):
        chunk = _ARTICLE.sub(r"\1", _CLAUSE.sub("", chunk.replace("万元", "元")))
        numbers = _NUMBER.findall(to_arabic(chunk))
        if numbers:
            found.add(int(numbers[0]))
    return found


def score_article_prediction(predictions: Sequence[str], references: Sequence[str]) -> TaskScore:
    """3-1: mean set F1; abstention = no article number found."""
    require_items("3-1", predictions, references)
    values: list[float | None] = []
    abstained: list[bool] = []
    for idx, (prediction, reference) in enumerate(zip(predictions, references, strict=True)):
        found = predicted_articles(prediction)
        values.append(float(set_f1(gold_articles(idx, reference), found)))
        abstained.append(not found)
    return mean_score("3-1", values, abstained)

"""The outcome of scoring one LawBench task file: score, abstention rate and per-item detail."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


class ScoringError(ValueError):
    """A prediction or reference that the task's rules cannot read; the message names task and item."""


@dataclass(frozen=True)
class TaskScore:
    """Score of one task file (spec lawbench.md §5).

    `n` is the number of items in the file, which is also the abstention denominator. `item_scores` holds
    each item's value in index order, None where the task's rule skips the item (zero-shot 2-2 `赔偿` rows,
    3-4/3-5 death or life sentences); it is empty for 2-1, whose F0.5 is corpus-level (its counts are in
    `detail`). `abstained` flags items from which no answer could be extracted (all False for tasks that
    define no abstention).
    """

    task: str
    score: float
    abstention_rate: float
    n: int
    item_scores: tuple[float | None, ...] = ()
    abstained: tuple[bool, ...] = ()
    detail: Mapping[str, Any] = field(default_factory=dict)

    @property
    def n_scored(self) -> int:
        """Items that entered the score (all items for 2-1)."""
        return sum(v is not None for v in self.item_scores) if self.item_scores else self.n


def require_items(task: str, *columns: Sequence[str]) -> int:
    """Check that the per-item columns are non-empty and equally long; return their length."""
    lengths = {len(c) for c in columns}
    if len(lengths) != 1:
        raise ScoringError(f"task {task}: per-item columns differ in length {sorted(lengths)}")
    n = lengths.pop()
    if n == 0:
        raise ScoringError(f"task {task}: no items to score")
    return n


def strip_prefix(task: str, idx: int, text: str, prefix: str) -> str:
    """The reference after its fixed prefix; a reference without it is a format error, not a wrong answer."""
    if not text.startswith(prefix):
        raise ScoringError(f"task {task} item {idx}: reference {text[:40]!r} does not start with {prefix!r}")
    return text[len(prefix) :]


def mean_score(
    task: str,
    values: Sequence[float | None],
    abstained: Sequence[bool] | None = None,
    detail: Mapping[str, Any] | None = None,
) -> TaskScore:
    """Average the non-skipped item values; abstentions are counted over all items.

    Summation is left to right in index order, as in the official scorer, so the float result is identical.
    """
    n = len(values)
    flags = tuple(abstained) if abstained is not None else (False,) * n
    scored = [v for v in values if v is not None]
    if not scored:
        raise ScoringError(f"task {task}: every item was skipped by the task's rule; there is nothing to average")
    return TaskScore(
        task=task,
        score=sum(scored) / len(scored),
        abstention_rate=sum(flags) / n,
        n=n,
        item_scores=tuple(values),
        abstained=flags,
        detail=dict(detail or {}),
    )

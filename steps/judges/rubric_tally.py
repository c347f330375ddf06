"""Adding up a rubric judge's answers in code (the judge counts, the code does the arithmetic; PLawBench App. F.2).

A rubric is a tree: award items sit in groups (a group has its own maximum and may sit in another group),
fail conditions zero an item or a group, penalties are counted against the whole. Each group's sum is
clamped to [0, its maximum] and the total to [0, the maximum]; every clamp is counted so that a report can
show how often the rubric's own arithmetic, rather than the judge, decided a score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class ItemKind(StrEnum):
    AWARD = "award"  # the judge gives points in [0, points]
    FAIL = "fail"  # the judge says whether it happened; it zeroes `target` and costs `points` more
    PENALTY = "penalty"  # the judge counts occurrences; each costs `points` off the total


@dataclass(frozen=True)
class RubricGroup:
    """A heading with its own maximum (a PLawBench dimension, a part of a drafting rubric)."""

    id: str
    title: str
    points: float
    note: str = ""
    parent: str | None = None


@dataclass(frozen=True)
class RubricItem:
    """One line the judge answers. `key_phrases`, `reference` and `error_hint` reach only the proxy judge
    (through call metadata, never the prompt): for an award the phrases that earn it and the wording it is
    compared with, for a fail or penalty the phrases whose presence escapes it."""

    id: str
    text: str
    points: float
    kind: ItemKind = ItemKind.AWARD
    group: str | None = None  # award: the group it counts in
    target: str | None = None  # fail: the award item or group it zeroes
    max_times: int | None = 1  # penalty: how often it may apply (None: no stated bound)
    key_phrases: tuple[str, ...] = ()
    reference: str = ""
    error_hint: str = ""

    def __post_init__(self) -> None:
        if self.kind is ItemKind.AWARD and self.points <= 0:
            raise ValueError(f"rubric item {self.id} must be worth more than 0 points")
        if self.points < 0:
            raise ValueError(f"rubric item {self.id} has negative points")


@dataclass(frozen=True)
class Rubric:
    items: tuple[RubricItem, ...]
    groups: tuple[RubricGroup, ...] = ()
    max_points: float | None = None  # None: the award points available (top groups' maxima + ungrouped items)
    rules: tuple[str, ...] = ()  # extra instructions for the judge (rendered in the prompt)
    error_labels: tuple[str, ...] = ()  # the judge may name one for an item it does not award in full
    verdict: str = "points"  # points: each award item's points; flags: met or not (full points or 0), ids only

    def of(self, kind: ItemKind) -> list[RubricItem]:
        return [i for i in self.items if i.kind is kind]

    def available(self) -> float:
        if self.max_points is not None:
            return self.max_points
        top = sum(g.points for g in self.groups if g.parent is None)
        return top + sum(i.points for i in self.of(ItemKind.AWARD) if i.group is None)


@dataclass(frozen=True)
class Answer:
    """The judge's answer for one item: points for an award, 0/1 for a fail, a count for a penalty."""

    value: float
    justification: str = ""
    error: str | None = None


@dataclass
class Tally:
    total: float
    max_points: float
    items: list[dict[str, Any]] = field(default_factory=list)
    groups: list[dict[str, Any]] = field(default_factory=list)
    fails: list[dict[str, Any]] = field(default_factory=list)
    penalties: list[dict[str, Any]] = field(default_factory=list)
    clamped: int = 0  # groups above their maximum, or the total outside [0, max]

    @property
    def value(self) -> float:
        return self.total / self.max_points if self.max_points > 0 else 0.0

    def evidence(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "max": self.max_points,
            "clamped": self.clamped,
            "items": self.items,
            "groups": self.groups,
            "fails": self.fails,
            "penalties": self.penalties,
        }


def tally(rubric: Rubric, answers: Mapping[str, Answer]) -> Tally:
    """Apply fails, clamp groups, subtract penalties; see the module docstring."""
    out = Tally(0.0, rubric.available())
    zeroed = set()
    for f in rubric.of(ItemKind.FAIL):
        hit = answers[f.id].value >= 1
        out.fails.append(
            {
                "id": f.id,
                "target": f.target,
                "triggered": hit,
                "extra": f.points if hit else 0.0,
                "justification": answers[f.id].justification,
            }
        )
        if hit and f.target:
            zeroed.add(f.target)
    scores: dict[str | None, float] = {}
    for item in rubric.of(ItemKind.AWARD):
        a = answers[item.id]
        got = 0.0 if item.id in zeroed else a.value
        out.items.append(
            {
                "id": item.id,
                "group": item.group,
                "points": item.points,
                "given": a.value,
                "awarded": got,
                "failed": item.id in zeroed,
                "error": a.error,
                "justification": a.justification,
            }
        )
        scores[item.group] = scores.get(item.group, 0.0) + got
    for group in _bottom_up(rubric.groups):
        raw = scores.get(group.id, 0.0)
        kept = 0.0 if group.id in zeroed else min(max(raw, 0.0), group.points)
        out.clamped += raw > group.points
        out.groups.append(
            {
                "id": group.id,
                "title": group.title,
                "points": group.points,
                "raw": raw,
                "awarded": kept,
                "failed": group.id in zeroed,
            }
        )
        scores[group.parent] = scores.get(group.parent, 0.0) + kept
    for p in rubric.of(ItemKind.PENALTY):
        times = answers[p.id].value
        out.penalties.append(
            {"id": p.id, "times": times, "deducted": times * p.points, "justification": answers[p.id].justification}
        )
    deducted = sum(p["deducted"] for p in out.penalties) + sum(f["extra"] for f in out.fails)
    raw_total = scores.get(None, 0.0) - deducted
    out.total = min(max(raw_total, 0.0), out.max_points)
    out.clamped += out.total != raw_total
    return out


def _bottom_up(groups: Sequence[RubricGroup]) -> list[RubricGroup]:
    """Children before their parents, so a group's sum is complete when it is clamped."""
    depth: dict[str, int] = {}
    by_id = {g.id: g for g in groups}

    def level(g: RubricGroup) -> int:
        if g.id not in depth:
            depth[g.id] = 0 if g.parent is None or g.parent not in by_id else level(by_id[g.parent]) + 1
        return depth[g.id]

    return sorted(groups, key=level, reverse=True)

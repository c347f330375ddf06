"""Rubric items as data: one `RubricRow` per item of a task's rubric, and `ParseIssue`s for what is unclear.

Kinds (spec plawbench.md §2):
- `section`: a heading with its own maximum (a PCA dimension, an LDG part or sub-part with sub-items);
- `award`: credit; `judged` award rows are the units the judge scores, the others are their sub-points;
- `deduction`: points taken off (inside a unit: applied by the judge within the unit; without a parent: a
  task-level penalty the judge counts, e.g. LDG 统一扣分项);
- `fail`: a 不及格 condition that zeroes its parent (its `points` are any further penalty, 倒扣);
- `alternative`: an equivalent statute (可替代法条) that earns its parent's credit;
- `optional`: an elaboration whose absence costs nothing (未分析不扣分);
- `level`: a tier of a tiered item (完全充分 / 部分充分 …), read by the judge as part of the unit.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import pandas as pd


@dataclass(frozen=True)
class RubricRow:
    item_id: str  # the task: pca/<line>, plc/<id>, plaintiff/<id>, defendant/<id>
    category: str
    rubric_id: str  # unique within the task
    parent_id: str | None
    order: int
    kind: str
    dimension: str  # PCA dimension, LDG part title, "" for PLC
    text: str
    points: float | None  # award/section: maximum; deduction: per occurrence; fail: further penalty
    max_times: int | None = 1  # deductions: how often one can apply (None: no stated bound)
    judged: bool = False  # the judge answers this row directly
    award_text: str = ""  # judged award rows: the credit-earning wording (oracle answers and proxy reference)


@dataclass(frozen=True)
class ParseIssue:
    item_id: str
    category: str
    rubric_id: str
    issue: str  # a short code: sum_exceeds, sum_short, total_mismatch, no_markers, …
    detail: str
    effect: str  # how the item is scored despite the issue


@dataclass
class Parsed:
    """What one task's rubric parses into; `max_points` comes from the data (see each parser)."""

    rows: list[RubricRow] = field(default_factory=list)
    issues: list[ParseIssue] = field(default_factory=list)
    max_points: float = 0.0


def rows_frame(rows: list[RubricRow]) -> pd.DataFrame:
    columns = list(RubricRow.__dataclass_fields__)
    return pd.DataFrame([asdict(r) for r in rows], columns=columns)


def issues_frame(issues: list[ParseIssue]) -> pd.DataFrame:
    columns = list(ParseIssue.__dataclass_fields__)
    return pd.DataFrame([asdict(i) for i in issues], columns=columns)


def fmt_points(value: float | None) -> str:
    """12.0 -> '12', 2.5 -> '2.5'."""
    return "" if value is None else f"{value:g}"

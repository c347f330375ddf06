"""Panels of judges (`judge: [a, b, c]` in a benchmark's section; steps/protocol.py `JudgePanel`): every member
judges every row, each member's rows are kept (the `<table>_panel.parquet` beside the judged table, told apart by
their `judge` column), and one aggregated row per judged unit feeds the scores.

Aggregation of the members' valid values of one unit:
- `mean`: their mean (the default for scores);
- `majority`: the value most members gave (the default for pairwise verdicts and other categories); when several
  values are given equally often, the median of the valid values (a 1–1 split between a win and a loss is a tie).
A unit no member valued keeps the first member's failure; a unit a rule valued (the same for every member) is kept
as it is, and only in the aggregated table. The aggregated row's other columns (reason, raw answer,
evidence) are those of the member whose value is nearest the aggregate (the first such); its `judge` is the panel's
label (`panel_label`), its `attempts` every member's calls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from statistics import median
from typing import TYPE_CHECKING, Any

import pandas as pd

from steps.llm import ModelConfig
from steps.protocol import Aggregation

if TYPE_CHECKING:
    from steps.params import Params

NOT_ASKED = ("rule", "")  # the `judge` of a value no judge model gave
PANEL_SUFFIX = "_panel"  # <table>_panel.parquet: every member's rows of a panel-judged table
# columns that identify a judged unit in some judged table (those a table has, with its agent, are its key)
KEY_COLUMNS = (
    "instance_id",
    "item_id",
    "scenario",
    "category",
    "variant",
    "stage",
    "metric",
    "component",
    "turn",
    "order",
)


def unit_keys(columns: Sequence[str]) -> list[str]:
    """The key columns of a judged table (beside its agent)."""
    return [c for c in KEY_COLUMNS if c in columns]


def panel_aggregation(params: Params, benchmark: str, pairwise: bool) -> Aggregation:
    """The aggregation of `benchmark`'s panel: its `aggregate`, else the default for the table's verdicts."""
    panel = params.section_named(benchmark).own_panel("judge")
    chosen = panel.aggregate if panel is not None else None
    return chosen or default_aggregation(pairwise)


def panel_spec(models: Sequence[ModelConfig], aggregation: Aggregation) -> dict[str, Any]:
    """What a panel adds to a judge run's record (a single judge's record stays as it was)."""
    return {"panel": {"judges": [m.model for m in models], "aggregate": aggregation}}


def default_aggregation(pairwise: bool) -> Aggregation:
    """Majority for pairwise (categorical) verdicts, the mean for scores."""
    return "majority" if pairwise else "mean"


def panel_label(models: Sequence[str], aggregation: Aggregation) -> str:
    """The `judge` of an aggregated row: `panel(majority): a + b`."""
    return f"panel({aggregation}): " + " + ".join(models)


def aggregate_values(values: Sequence[float], aggregation: Aggregation) -> float | None:
    """The panel's value from its members' valid values (None: no member gave one)."""
    if not values:
        return None
    if aggregation == "mean":
        return float(sum(values) / len(values))
    counts = pd.Series(list(values)).value_counts()
    top = counts[counts == counts.max()]
    return float(top.index[0]) if len(top) == 1 else float(median(values))


def aggregate(
    members: pd.DataFrame,
    keys: Sequence[str],
    aggregation: Aggregation,
    finish: Callable[[pd.Series], pd.Series] | None = None,
    also: Sequence[str] = (),
) -> pd.DataFrame:
    """One row per unit (`keys`) from every member's rows (`members`, the first member's order kept); `finish`
    makes a valued row's columns that follow from its value agree with it (UCL-Bench's outcome and verdict);
    `also` are numeric columns aggregated as the value is, over the members that valued the unit (PLawBench's
    points)."""
    asked = ~members.judge.isin(NOT_ASKED)
    models = list(dict.fromkeys(members.judge[asked]))
    if members[asked].duplicated([*keys, "judge"]).any():
        raise ValueError(f"a judge holds two rows of one unit ({', '.join(keys)}): not a key of the table")
    label = panel_label(models, aggregation)
    rows = []
    for _, unit in members.groupby(list(keys), sort=False, dropna=False):
        if not asked[unit.index].any():  # a rule's value (or nobody's): the same for every member, kept as it is
            rows.append(unit.iloc[0])
            continue
        unit = unit[asked[unit.index]]
        valid = unit[unit.value.notna() & unit.failure.isna()]
        value = aggregate_values([float(v) for v in valid.value], aggregation)
        if value is None:
            chosen = unit.iloc[0].copy()
        else:
            chosen = valid.loc[(valid.value - value).abs().idxmin()].copy()
            chosen["value"], chosen["failure"], chosen["error"] = value, None, ""
            for column in also:
                given = [float(v) for v in valid[column] if pd.notna(v)]
                chosen[column] = aggregate_values(given, aggregation) if given else chosen[column]
            if finish is not None:
                chosen = finish(chosen)
        chosen["judge"] = label
        chosen["judge_proxy"] = bool(unit.judge_proxy.any())
        chosen["attempts"] = int(unit.attempts.sum())
        rows.append(chosen)
    return pd.DataFrame(rows, columns=members.columns).reset_index(drop=True).astype(members.dtypes.to_dict())


def judge_by_panel(
    models: Sequence[ModelConfig],
    judge_one: Callable[[ModelConfig], pd.DataFrame],
    keys: Sequence[str],
    aggregation: Aggregation,
    finish: Callable[[pd.Series], pd.Series] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(aggregated rows, every member's rows): `judge_one(model)` judges every unit with one member."""
    members = pd.concat([judge_one(m) for m in models], ignore_index=True)
    return aggregate(members, keys, aggregation, finish), asked_rows(members)


def asked_rows(members: pd.DataFrame) -> pd.DataFrame:
    """The rows a judge model produced (a rule's rows are the same for every member: kept once, in the table)."""
    return members[~members.judge.isin(NOT_ASKED)].reset_index(drop=True)

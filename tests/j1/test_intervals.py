"""J1-EVAL's item scores: cells clustered on the source case that CD, DD and CI share, and Table 3's averages."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from steps.j1.envs.catalog import metric_table
from steps.j1.eval.intervals import case_of, item_scores_of
from steps.stats.cells import cell_intervals


def _scores() -> pd.DataFrame:
    rows: list[tuple[str, str, str, str, float | None]] = []
    for case, v in (("c/1", 1.0), ("c/2", 0.5), ("c/3", 0.0)):
        rows.append(("CD/" + case, "CD", "II-1", "", v))
        rows.append(("DD/" + case, "DD", "II-1", "", 1 - v))
        rows.append(("CD/" + case, "CD", "II-2", "CLA", v))
        rows.append(("CD/" + case, "CD", "II-2", "T1", 0.3))  # topic evidence: not a cell
    rows.append(("CD/c/4", "CD", "II-1", "", None))  # skipped: left out
    return pd.DataFrame(rows, columns=["instance_id", "scenario", "metric", "component", "value"]).assign(agent="a")


def test_source_case_is_shared_across_environments() -> None:
    assert case_of(pd.Series(["CD/c3rd/ab", "DD/c3rd/ab"])).nunique() == 1


def test_cells_by_hand() -> None:
    scores = item_scores_of(_scores())
    cells = cell_intervals(scores, b=200).set_index(["table", "scope", "metric"])
    cd = cells.loc[("table3", "CD", "II-1")]
    # 100, 50, 0 on three cases (the skipped one left out): s = 50, SE = 50/√3
    assert cd.estimate == pytest.approx(50) and cd.n == 3 and cd.se == pytest.approx(50 / math.sqrt(3))
    assert cells.loc[("table6", "CD", "II-2/CLA")].estimate == pytest.approx(50)
    assert not scores.items.metric.str.contains("T1").any()
    items = scores.items
    assert set(items[items.scope == "DD"].cluster) == {"c/1", "c/2", "c/3"} <= set(items[items.scope == "CD"].cluster)
    kinds = metric_table().dropna(subset=["average"])
    outcome = kinds[kinds.average == "AVG_OO"]
    assert set(scores.aggregates[("table3", "overall", "AVG_OO")]) == {
        ("table3", sc, m) for sc, m in zip(outcome.scenario, outcome.metric, strict=True)
    }
    assert ("table3", "overall", "AVG_OO") not in cells.index  # most environments have no items here

"""MILE's item scores give the numbers its report prints, and their intervals (steps/mile/intervals.py)."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from scipy import stats as sps

from steps.mile.intervals import GOAL_SEVEN, item_scores_of
from steps.stats.cells import attach_intervals, cell_intervals


def _scores() -> tuple[pd.DataFrame, pd.DataFrame]:
    goal = [
        {"agent": "a", "instance_id": i, "stage": "goal", "metric": m, "scaled": v, "grade": None, "turn": None}
        for i, base in (("m/1", 100.0), ("m/2", 50.0), ("m/3", 0.0))
        for m in GOAL_SEVEN
        for v in [base if m != "CLA" else 100.0]
    ]
    grades = {("m/1", 1): 8.0, ("m/1", 2): 6.0, ("m/2", 1): 5.0, ("m/3", 1): 2.0}
    windows = [
        {"agent": "a", "instance_id": i, "stage": "interaction", "metric": m, "scaled": None, "grade": g, "turn": t}
        for (i, t), g in grades.items()
        for m in ("INT", "PROF", "LOGI")
    ]
    scores = pd.DataFrame(goal + windows).assign(failure=None)
    scores.loc[(scores.instance_id == "m/3") & (scores.metric == "STA"), "failure"] = "call_failed"
    dialogues = pd.DataFrame({"agent": "a", "instance_id": ["m/1", "m/2", "m/3"], "law_reason": ["x", "x", "y"]})
    return scores, dialogues


def test_cells_and_aggregates_by_hand() -> None:
    cells = cell_intervals(item_scores_of(*_scores()), b=500).set_index(["table", "scope", "metric"])
    # EVID: 100, 50, 0 over three dialogues → mean 50, s = 50, SE = 50/√3, t with 2 df
    evid = cells.loc[("goal", "overall", "EVID")]
    assert evid.estimate == 50 and evid.se == pytest.approx(50 / math.sqrt(3))
    assert evid.ci_high == pytest.approx(50 + sps.t.ppf(0.975, 2) * 50 / math.sqrt(3))
    assert cells.loc[("goal", "overall", "STA")].n == 2  # the failed call is left out
    # AVE: CLA 100; STA (100 + 50)/2 = 75; the other five 50 → (100 + 75 + 5·50)/7
    ave = cells.loc[("goal", "overall", "AVE")]
    assert ave.estimate == pytest.approx((100 + 75 + 250) / 7) and ave.ci_method == "cluster-bootstrap(B=500)"
    # interaction: dialogue means 7, 5, 2 (× 10) → 46.67; windows micro-mean (8+6+5+2)/4 × 10, clustered on dialogues
    assert cells.loc[("interaction", "overall", "INT")].estimate == pytest.approx(140 / 3)
    windows = cells.loc[("interaction", "windows", "INT")]
    assert windows.estimate == pytest.approx(52.5) and windows.clusters == 3 and windows.n == 4
    assert cells.loc[("interaction", "x", "AVE")].estimate == pytest.approx(60)
    total = cells.loc[("total", "overall", "AVE")]
    assert total.estimate == pytest.approx(((100 + 75 + 250) / 7 + 140 / 3) / 2)


def test_attach_refuses_items_that_do_not_give_the_reported_number() -> None:
    cells = cell_intervals(item_scores_of(*_scores()), b=200)
    rows = pd.DataFrame(
        {"agent": ["a", "a"], "table": "goal", "scope": "overall", "metric": ["EVID", "CLA"], "source": "ours"}
    )
    filled = attach_intervals(rows.assign(value=[50.0, 100.0]), cells)
    assert filled.ci_method.tolist() == ["cluster-se(t, G=3)", "cluster-se(t, G=3)"]
    assert filled.se.iloc[1] == 0
    with pytest.raises(ValueError, match="EVID"):
        attach_intervals(rows.assign(value=[49.0, 100.0]), cells)

"""UCL-Bench's item scores give the numbers its report prints, with intervals clustered on the item."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from steps.stats.cells import cell_intervals
from steps.stats.intervals import wilson
from steps.ucl.intervals import item_scores_of
from steps.ucl.tasks import tasks_frame


def _verdicts() -> pd.DataFrame:
    task = tasks_frame().query("task_id == '1-1'").task.iloc[0]
    rows = []  # item i1: win, win; i2: win, loss (disagree); i3: tie, loss; i4: loss, failed call
    for item, first, second in (
        ("i1", "win", "win"),
        ("i2", "win", "loss"),
        ("i3", "tie", "loss"),
        ("i4", "loss", None),
    ):
        for order, outcome in (("candidate_first", first), ("reference_first", second)):
            value = {"win": 1.0, "tie": 0.5, "loss": 0.0, None: None}[outcome]
            rows.append(
                {"agent": "a", "item_id": item, "task": task, "order": order, "outcome": outcome, "value": value,
                 "failure": None if outcome else "call_failed"}
            )  # fmt: skip
    return pd.DataFrame(rows)


def test_win_rates_by_hand() -> None:
    hints = pd.DataFrame(columns=["agent", "item_id", "task", "value", "failure"])
    dialogues = pd.DataFrame(columns=["agent", "instance_id", "task", "rounds", "ended_by", "failure"])
    cells = cell_intervals(item_scores_of(_verdicts(), hints, dialogues), b=300).set_index(["table", "scope", "metric"])
    win = cells.loc[("win_rate", "1-1", "win_rate")]
    # points ×100 of the 7 scored verdicts: 100, 100 | 100, 0 | 50, 0 | 0 → 350/7 = 50, clustered on 4 items
    assert win.estimate == pytest.approx(50.0) and win.n == 7 and win.clusters == 4
    resid = [100 + 100 - 100, 100 + 0 - 100, 50 + 0 - 100, 0 - 50]
    se = math.sqrt(sum(r * r for r in resid)) / 7 * math.sqrt(4 / 3)
    assert win.se == pytest.approx(se)
    # balanced: i1 100, i2 50 (orders disagree), i3 50 (tie vs loss disagree); i4 lacks an order
    assert cells.loc[("win_rate", "1-1", "win_rate_balanced")].estimate == pytest.approx(200 / 3)
    dis = cells.loc[("win_rate", "1-1", "order_disagreement")]
    ref = wilson(2, 3).scaled(100)
    assert dis.estimate == pytest.approx(200 / 3) and dis.ci_method == "wilson"
    assert (dis.ci_low, dis.ci_high) == pytest.approx((ref.low, ref.high))
    assert cells.loc[("win_rate", "1-1", "win_rate_candidate_first")].estimate == pytest.approx(62.5)
    assert ("win_rate", "overall", "win_rate") not in cells.index  # the other 21 tasks have no verdicts

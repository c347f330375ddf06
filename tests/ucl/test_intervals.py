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


def test_win_rate_interval_is_wilson_at_the_effective_sample_size() -> None:
    hints = pd.DataFrame(columns=["agent", "item_id", "task", "value", "failure"])
    dialogues = pd.DataFrame(columns=["agent", "instance_id", "task", "rounds", "ended_by", "failure"])
    cells = cell_intervals(item_scores_of(_verdicts(), hints, dialogues), b=300).set_index(["table", "scope", "metric"])
    win = cells.loc[("win_rate", "1-1", "win_rate")]
    # p̂ = 0.5; SE on the 0–1 scale = the clustered SE above / 100; n_eff = p̂(1 − p̂)/SE² bounded to [G, n] = [4, 7]
    se = math.sqrt(1.0**2 + 0.0**2 + 0.5**2 + 0.5**2) / 7 * math.sqrt(4 / 3)  # residuals 1, 0, −0.5, −0.5
    n_eff = min(max(0.25 / se**2, 4.0), 7.0)
    assert n_eff == pytest.approx(6.125)  # 0.25 / (1.5/49 · 4/3) = 0.25 / (2/49)
    z = 1.959963984540054
    centre = (0.5 + z * z / (2 * n_eff)) / (1 + z * z / n_eff)
    half = z / (1 + z * z / n_eff) * math.sqrt(0.25 / n_eff + z * z / (4 * n_eff * n_eff))
    assert win.ci_method == "wilson-eff(n=6.1, G=4)"
    assert (win.ci_low, win.ci_high) == pytest.approx((100 * (centre - half), 100 * (centre + half)))


def test_an_all_win_cell_is_not_a_zero_width_interval() -> None:
    verdicts = _verdicts()
    verdicts = verdicts[verdicts.failure.isna()].assign(outcome="win", value=1.0)  # 7 verdicts on 4 items, all won
    hints = pd.DataFrame(columns=["agent", "item_id", "task", "value", "failure"])
    dialogues = pd.DataFrame(columns=["agent", "instance_id", "task", "rounds", "ended_by", "failure"])
    cells = cell_intervals(item_scores_of(verdicts, hints, dialogues), b=300).set_index(["table", "scope", "metric"])
    win = cells.loc[("win_rate", "1-1", "win_rate")]
    # p̂ = 1: n_eff = G = 4 items; Wilson(4, 4): centre (1 + z²/8)/(1 + z²/4), half z/(1 + z²/4)·√(z²/64)
    z = 1.959963984540054
    low = (1 + z * z / 8) / (1 + z * z / 4) - z / (1 + z * z / 4) * z / 8
    assert win.estimate == 100.0 and win.ci_high == pytest.approx(100.0)
    assert win.ci_low == pytest.approx(100 * low) and 50 < win.ci_low < 60  # 51.0, not 100 ± 0
    assert win.ci_method == "wilson-eff(n=4.0, G=4)"


def _all_won(items_per_task: dict[str, int]) -> pd.DataFrame:
    """Every verdict a win: the main tasks' items (`items_per_task`, 2 by default), both orders each."""
    rows = []
    for t in tasks_frame().itertuples():
        for i in range(items_per_task.get(t.task_id, 2)):
            for order in ("candidate_first", "reference_first"):
                rows.append({"agent": "a", "item_id": f"{t.task_id}#{i}", "task": t.task, "order": order,
                             "outcome": "win", "value": 1.0, "failure": None})  # fmt: skip
    return pd.DataFrame(rows)


def test_an_all_win_avg_is_wilson_at_the_effective_number_of_items() -> None:
    """UCL-Bench's AVG (the mean of the 22 main tasks' rates) of an agent that won every verdict: not `100 ± 0`
    (a bootstrap of identical items) but Wilson(G, G) at the items, as each task's own rate."""
    hints = pd.DataFrame(columns=["agent", "item_id", "task", "value", "failure"])
    dialogues = pd.DataFrame(columns=["agent", "instance_id", "task", "rounds", "ended_by", "failure"])
    cells = cell_intervals(item_scores_of(_all_won({}), hints, dialogues), b=200).set_index(
        ["table", "scope", "metric"]
    )
    avg = cells.loc[("win_rate", "overall", "win_rate")]
    # 22 main tasks × 2 items: G_eff = 44; Wilson at p̂ = 1: low = n / (n + z²) = 44 / 47.8415 = 0.91970
    z2 = 1.959963984540054**2
    assert avg.estimate == pytest.approx(100.0) and avg.ci_high == pytest.approx(100.0)
    assert avg.ci_low == pytest.approx(100 * 44 / (44 + z2)) and avg.ci_low == pytest.approx(91.970, abs=1e-3)
    assert avg.ci_method == "wilson-eff(n=44.0, G=44.0; cluster-bootstrap(B=200) SE)"
    task = cells.loc[("win_rate", "1-1", "win_rate")]  # a task's own rate: Wilson(2, 2)
    assert task.ci_low == pytest.approx(100 * 2 / (2 + z2))
    # unequal tasks: task 1-1 with 10 items, the other 21 with 2: the unweighted mean of the rates weighs an item
    # of 1-1 1/(22·10), another 1/(22·2); G_eff = (Σ W_c)² / Σ W_c² = 1 / (10/220² + 42/44²) = 45.66, fewer than
    # the 52 items: the 10 of task 1-1 count for one task
    unequal = cell_intervals(item_scores_of(_all_won({"1-1": 10}), hints, dialogues), b=200)
    avg = unequal.set_index(["table", "scope", "metric"]).loc[("win_rate", "overall", "win_rate")]
    g_eff = 1 / (10 / 220**2 + 42 / 44**2)
    assert g_eff == pytest.approx(45.66, abs=0.01)
    assert avg.ci_low == pytest.approx(100 * g_eff / (g_eff + z2))
    # another task's own rate stays Wilson at its items
    assert cells.loc[("win_rate", "2-1", "win_rate")].ci_method.startswith("wilson-eff(n=2.0")

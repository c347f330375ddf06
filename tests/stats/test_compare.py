"""`jurisflow compare`'s numbers against hand-computed cases: 0/1 items (McNemar), scores (sign-flip test),
an aggregate, failed items excluded from both sides and counted, BH across the cells."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from steps.stats.cells import ITEM_COLUMNS, ItemScores
from steps.stats.compare import compare


def _items() -> ItemScores:
    rows = []
    # cell acc: 0/1 items, each its own cluster. A right/B wrong on 6, A wrong/B right on 1, both right on 2,
    # one item A failed (NaN): excluded from both.
    a_acc = [1, 1, 1, 1, 1, 1, 0, 1, 1, math.nan]
    b_acc = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]
    for i, (x, y) in enumerate(zip(a_acc, b_acc, strict=True)):
        rows.append(("A", "t", "s", "acc", f"q{i}", f"q{i}", x, "proportion"))
        rows.append(("B", "t", "s", "acc", f"q{i}", f"q{i}", y, "proportion"))
    # cell score: scores in clusters c1 (2 items), c2, c3 (1 each); d = 2, 2 | 1 | 3
    for item, cl, x, y in (("r1", "c1", 5, 3), ("r2", "c1", 4, 2), ("r3", "c2", 2, 1), ("r4", "c3", 6, 3)):
        rows.append(("A", "t", "s", "score", item, cl, x, "mean"))
        rows.append(("B", "t", "s", "score", item, cl, y, "mean"))
    items = pd.DataFrame(rows, columns=ITEM_COLUMNS)
    agg = {("t", "s", "avg"): {("t", "s", "acc"): 0.5, ("t", "s", "score"): 0.5}}
    return ItemScores(items, agg)


def test_a_hand_computed_comparison() -> None:
    out = compare(_items(), "A", "B", draws=2000, boot=400, seed=1).set_index("metric")
    acc = out.loc["acc"]
    # 9 paired items: A 8/9, B 3/9; Δ = 5/9; McNemar exact: binom(6 of 7, 0.5)
    assert acc.n == 9 and acc.n_excluded == 1 and acc.level == "cell"
    assert acc.a == pytest.approx(8 / 9) and acc.b == pytest.approx(3 / 9) and acc.delta == pytest.approx(5 / 9)
    assert acc.test == "mcnemar-exact" and acc.p == pytest.approx(sps.binomtest(6, 7, 0.5).pvalue)
    d = np.array([1, 1, 1, 1, 1, 1, -1, 0, 0], dtype=float)
    assert acc.se == pytest.approx(float(sps.sem(d)))
    assert acc.pearson == pytest.approx(float(sps.pearsonr([1] * 6 + [0, 1, 1], [0] * 6 + [1, 1, 1]).statistic))
    score = out.loc["score"]
    # d = 2, 2, 1, 3 → Δ = 2; cluster residual sums (2-2)+(2-2) = 0, -1, 1 → SE = √2/4 · √(3/2)
    assert score.delta == pytest.approx(2.0) and score.clusters == 3
    assert score.se == pytest.approx(math.sqrt(2) / 4 * math.sqrt(1.5))
    assert score.ci_low == pytest.approx(2 - sps.t.ppf(0.975, 2) * score.se)
    # cluster sums 4, 1, 3 all positive: exactly 2 of the 8 sign patterns reach |8| → p = 0.25
    assert score.test.startswith("permutation") and score.p == pytest.approx(0.25)
    avg = out.loc["avg"]
    assert avg.level == "aggregate" and avg.delta == pytest.approx(0.5 * 5 / 9 + 0.5 * 2.0)
    assert avg.ci_low < avg.delta < avg.ci_high and avg.n_excluded == 1
    # BH over the three cells
    p = [out.loc[m, "p"] for m in ("acc", "score", "avg")]
    ranks = np.argsort(p)
    adjusted = np.minimum.accumulate((np.array(p)[ranks] * 3 / np.arange(1, 4))[::-1])[::-1]
    assert [out.loc[m, "p_bh"] for m in np.array(["acc", "score", "avg"])[ranks]] == pytest.approx(adjusted)


def test_an_agent_compared_with_itself_differs_nowhere() -> None:
    scores = _items()
    same = scores.items[scores.items.agent == "A"]
    twin = ItemScores(pd.concat([same, same.assign(agent="C")], ignore_index=True), scores.aggregates)
    out = compare(twin, "A", "C", draws=500, boot=200)
    assert (out.delta == 0).all() and (out.p == 1).all()

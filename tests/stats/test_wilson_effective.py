"""The win-rate interval: Wilson at the effective sample size, checked against statsmodels and by hand."""

from __future__ import annotations

import math

import pytest
from statsmodels.stats.proportion import proportion_confint

from steps.stats.intervals import wilson_effective


def test_independent_zero_one_items_give_the_plain_wilson_interval() -> None:
    shares = [1, 1, 1, 0, 1, 0, 1, 1, 1, 1]  # 8 of 10, each its own cluster: n_eff = n
    iv = wilson_effective(shares, list(range(10)))
    assert (iv.low, iv.high) == pytest.approx(proportion_confint(8, 10, method="wilson"))
    assert iv.method == "wilson-eff(n=10.0, G=10)"


def test_clusters_that_move_together_count_once() -> None:
    # 3 items of 2 verdicts each, both verdicts alike: (1, 1), (1, 1), (0, 0): p̂ = 2/3
    iv = wilson_effective([1, 1, 1, 1, 0, 0], ["a", "a", "b", "b", "c", "c"])
    # CR1: residual sums 2/3, 2/3, −4/3 → SE² = (4/9 + 4/9 + 16/9)/36 · 3/2 = 1/9; p̂(1 − p̂)/SE² = 2 → bounded to G = 3
    assert iv.se == pytest.approx(1 / 3)
    assert (iv.low, iv.high) == pytest.approx(proportion_confint(2, 3, method="wilson"))


def test_zero_and_one_are_not_degenerate() -> None:
    z = 1.959963984540054
    top = wilson_effective([1.0] * 6, ["a", "a", "b", "b", "c", "c"])  # all won: n_eff = G = 3
    assert top.high == pytest.approx(1.0) and top.se == 0.0
    assert top.low == pytest.approx((1 + z * z / 6) / (1 + z * z / 3) - z / (1 + z * z / 3) * z / 6)
    assert math.isclose(top.low, 0.43850, abs_tol=1e-5)
    bottom = wilson_effective([0.0] * 6, ["a", "a", "b", "b", "c", "c"])
    assert bottom.low == pytest.approx(0.0, abs=1e-12) and bottom.high == pytest.approx(1 - top.low)


def test_shares_outside_zero_one_are_refused() -> None:
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        wilson_effective([1.5, 0.0], ["a", "b"])

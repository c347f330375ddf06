"""The chunked sign-flip test used above MANY_CLUSTERS clusters agrees with scipy's permutation_test."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from steps.stats.paired import MANY_CLUSTERS, permutation_p, sign_flip_p


def _scipy(sums: np.ndarray, draws: int) -> float:
    res = sps.permutation_test(
        (sums,), lambda x, axis: np.sum(x, axis=axis), permutation_type="samples", vectorized=True,
        n_resamples=draws, rng=np.random.default_rng(7), batch=500,
    )  # fmt: skip
    return float(res.pvalue)


@pytest.mark.parametrize("shift", [0.0, 0.03])
def test_it_agrees_with_scipy_within_monte_carlo_error(shift: float) -> None:
    sums = np.random.default_rng(3).normal(size=2500) + shift
    ours, theirs = sign_flip_p(sums, 4000), _scipy(sums, 4000)
    # two independent Monte Carlo estimates of one p-value: within 4 SE of the binomial spread of each
    spread = 4 * np.sqrt(2 * max(theirs, 0.01) * (1 - min(theirs, 0.99)) / 4000) * 2
    assert abs(ours - theirs) <= spread


def test_every_cluster_on_one_side_gives_the_smallest_p() -> None:
    sums = np.full(3000, 0.5)
    assert sign_flip_p(sums, 1000) == pytest.approx(2 / 1001)  # no flip reaches the observed total
    balanced = np.r_[1.0, -1.0].repeat(1500)  # total 0, the centre of the null: 2 · min(P(T* ≤ 0), P(T* ≥ 0)) ≈ 1
    assert sign_flip_p(balanced, 1000) > 0.9


def test_many_clusters_take_the_chunked_path_seeded() -> None:
    d = np.random.default_rng(5).normal(size=MANY_CLUSTERS + 1)
    clusters = np.arange(d.size)
    assert permutation_p(d, clusters, 2000) == sign_flip_p(d, 2000)
    assert permutation_p(d, clusters, 2000) == permutation_p(d, clusters, 2000)  # seeded: the same p every time

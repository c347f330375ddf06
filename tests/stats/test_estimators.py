"""The estimators of steps/stats against hand-computed cases and independent implementations (scipy, statsmodels)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats as sps
from statsmodels.stats.power import NormalIndPower

from steps.stats import (
    ClusterSums,
    bh_adjust,
    cluster_bootstrap,
    cluster_mean,
    correlation,
    mcnemar_exact,
    minimum_detectable_difference,
    paired_difference,
    wilson,
)
from steps.stats.cells import aggregate_interval
from steps.stats.intervals import CHUNK, mean_of_ratios, ratio
from steps.stats.paired import permutation_p


def test_wilson_by_hand() -> None:
    # 8 of 10: centre (0.8 + 1.96²/20)/(1 + 1.96²/10), half-width z/(1 + z²/n)·√(p̂(1−p̂)/n + z²/4n²)
    z, n, p = 1.959963984540054, 10, 0.8
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    iv = wilson(8, 10)
    assert iv.estimate == 0.8 and iv.method == "wilson" and iv.n == 10
    assert iv.low == pytest.approx(centre - half, abs=1e-12) and iv.high == pytest.approx(centre + half, abs=1e-12)
    assert iv.low == pytest.approx(0.4901, abs=1e-4) and iv.high == pytest.approx(0.9433, abs=1e-4)
    assert iv.se == pytest.approx(math.sqrt(0.16 / 10))


def test_wilson_at_the_edges_is_not_degenerate() -> None:
    top = wilson(18, 18)
    assert top.high == pytest.approx(1.0) and top.low is not None and top.low < 0.85
    bottom = wilson(0, 18)
    assert bottom.low == pytest.approx(0.0, abs=1e-12) and bottom.high is not None and bottom.high > 0.15
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_cluster_mean_by_hand() -> None:
    # clusters a: [1, 0], b: [1, 1], c: [0]; mean 3/5 = 0.6; residual sums a: 0.4-0.6=-0.2, b: 0.8, c: -0.6
    iv = cluster_mean([1, 0, 1, 1, 0], ["a", "a", "b", "b", "c"])
    se = math.sqrt(0.04 + 0.64 + 0.36) / 5 * math.sqrt(3 / 2)
    assert iv.estimate == pytest.approx(0.6) and iv.se == pytest.approx(se)
    t = sps.t.ppf(0.975, 2)
    assert iv.low == pytest.approx(0.6 - t * se) and iv.high == pytest.approx(0.6 + t * se)
    assert iv.method == "cluster-se(t, G=3)" and iv.clusters == 3 and iv.n == 5


def test_cluster_mean_equals_statsmodels_cluster_robust_ols() -> None:
    rng = np.random.default_rng(1)
    groups = np.repeat(np.arange(12), rng.integers(1, 6, size=12))
    y = rng.normal(size=groups.size) + groups * 0.1
    fit = sm.OLS(y, np.ones_like(y)).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
    iv = cluster_mean(y, groups)
    assert iv.se == pytest.approx(float(fit.bse[0]), rel=1e-10)
    low, high = fit.conf_int()[0]
    assert iv.low == pytest.approx(low, rel=1e-9) and iv.high == pytest.approx(high, rel=1e-9)


def test_cluster_mean_with_singleton_clusters_is_s_over_root_n() -> None:
    y = np.array([3.0, 5.0, 4.0, 9.0, 1.0])
    iv = cluster_mean(y, range(5))
    assert iv.se == pytest.approx(float(sps.sem(y)))
    one = cluster_mean([1.0, 2.0], ["x", "x"])
    assert one.se is None and one.low is None and one.estimate == 1.5


def test_bootstrap_of_a_mean_matches_the_clustered_se_and_is_seeded() -> None:
    rng = np.random.default_rng(7)
    groups = np.repeat(np.arange(60), 3)
    y = rng.normal(size=groups.size) + np.repeat(rng.normal(size=60), 3)
    data = ClusterSums.from_items(np.column_stack([y, np.ones_like(y)]), groups)
    iv = cluster_bootstrap(data, ratio(0, 1), b=4000, seed=3)
    ref = cluster_mean(y, groups)
    assert iv.estimate == pytest.approx(y.mean())
    assert iv.se is not None and ref.se is not None
    assert iv.se == pytest.approx(ref.se, rel=0.1)  # bootstrap SD ≈ √((G−1)/G)·CR1 SE, within Monte Carlo error
    assert iv == cluster_bootstrap(data, ratio(0, 1), b=4000, seed=3)
    assert iv != cluster_bootstrap(data, ratio(0, 1), b=4000, seed=4)
    assert iv.method == "cluster-bootstrap(B=4000)" and iv.clusters == 60 and iv.n == 180


def test_bootstrap_percentiles_match_a_plain_loop() -> None:
    # the weights trick against resampling cluster indices in a loop with the same draws
    y = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0])
    groups = np.array([0, 0, 1, 2, 2, 3, 4])
    data = ClusterSums.from_items(np.column_stack([y, np.ones_like(y)]), groups)
    b, seed = 500, 11
    iv = cluster_bootstrap(data, ratio(0, 1), b=b, seed=seed)
    rng = np.random.default_rng(seed)
    reps = []
    for start in range(0, b, CHUNK):  # the same draws: per chunk, a (replicates, 5) array of cluster indices
        for drawn in rng.integers(0, 5, size=(min(CHUNK, b - start), 5)):
            idx = np.concatenate([np.flatnonzero(groups == c) for c in drawn])
            reps.append(y[idx].mean())
    assert iv.low == pytest.approx(np.percentile(reps, 2.5)) and iv.high == pytest.approx(np.percentile(reps, 97.5))


def test_stratified_bootstrap_of_an_average_of_averages() -> None:
    # task A: 1,1,0,1 (0.75); task B: 0,0,1 (1/3); headline = mean of task means = 13/24
    y = np.array([1, 1, 0, 1, 0, 0, 1], dtype=float)
    task = np.array(["A"] * 4 + ["B"] * 3)
    cols = np.column_stack([y * (task == "A"), task == "A", y * (task == "B"), task == "B"]).astype(float)
    data = ClusterSums.from_items(cols, np.arange(7), strata=task)
    iv = cluster_bootstrap(data, mean_of_ratios([(0, 1), (2, 3)]), b=300, seed=1)
    assert iv.estimate == pytest.approx(13 / 24)
    assert iv.low is not None and iv.high is not None and 0 <= iv.low < 13 / 24 < iv.high <= 1
    with pytest.raises(ValueError, match="two strata"):
        ClusterSums.from_items(cols, [0, 0, 1, 2, 3, 4, 5], strata=["A", "B", "A", "A", "B", "B", "B"])


def _one_setting(values: dict[str, list[float]]) -> pd.DataFrame:
    rows = [
        {"agent": "a", "table": "s", "scope": t, "metric": "m", "item": f"{t}/{i}", "cluster": f"{t}/{i}",
         "score": v, "kind": "mean", "stratum": t}
        for t, vs in values.items() for i, v in enumerate(vs)
    ]  # fmt: skip
    return pd.DataFrame(rows)


def test_one_cluster_strata_are_collapsed_not_read_as_zero_variance() -> None:
    # mean of task means; t1 has two items (0, 1), t2 and t3 one each (0.5, 1): the two lonely strata become one
    # pseudo-cell (their mean 0.75, weight 2/3) resampled in one stratum. Bootstrap variance by hand:
    # (1/3)²·Var*(t1 mean) + (2/3)²·Var*(pseudo) = (1/9)(0.25/2) + (4/9)(0.0625/2) = 1/36
    weights = {("s", t, "m"): 1 / 3 for t in ("t1", "t2", "t3")}
    iv = aggregate_interval(_one_setting({"t1": [0.0, 1.0], "t2": [0.5], "t3": [1.0]}), weights, b=4000, seed=3)
    assert iv is not None and iv.estimate == pytest.approx(2 / 3)
    assert iv.se == pytest.approx(1 / 6, rel=0.05) and iv.method.endswith("; 2 one-cluster strata collapsed)")
    # a single lonely stratum has nothing to be collapsed with: held fixed, and the method says so
    iv = aggregate_interval(_one_setting({"t1": [0.0, 1.0], "t2": [0.5, 0.2], "t3": [1.0]}), weights, b=400)
    assert iv is not None and iv.method.endswith("; 1 one-cluster stratum held fixed)")
    # no lonely stratum: the plain stratified bootstrap
    iv = aggregate_interval(_one_setting({"t1": [0.0, 1.0], "t2": [0.5, 0.2], "t3": [1.0, 0.3]}), weights, b=400)
    assert iv is not None and iv.method == "cluster-bootstrap(B=400)"


def test_mcnemar_exact_is_the_binomial_test_of_discordant_pairs() -> None:
    a = [1] * 9 + [0] * 2 + [1] * 5 + [0] * 4
    b = [0] * 9 + [1] * 2 + [1] * 5 + [0] * 4
    assert mcnemar_exact(a, b) == pytest.approx(sps.binomtest(9, 11, 0.5).pvalue)
    assert mcnemar_exact([1, 0], [1, 0]) == 1.0
    with pytest.raises(ValueError):
        mcnemar_exact([0.5], [1])


def test_permutation_p_is_exact_for_few_clusters() -> None:
    # 4 clusters with sums 3, 1, 2, -1 (observed total 5): of the 16 sign patterns, |±3 ±1 ±2 ±1| ≥ 5 for
    # 3+1+2+1 = 7, 3+1+2-1 = 5, 3-1+2+1 = 5 and their negations → p = 6/16
    d = [1, 2, 1, 2, -1]
    clusters = ["a", "a", "b", "c", "d"]
    assert permutation_p(d, clusters) == pytest.approx(6 / 16)
    assert permutation_p([0, 0], ["a", "b"]) == 1.0
    assert permutation_p([3.0, 1.0], ["a", "a"]) == 1.0  # one cluster: its two sign patterns tie


def test_paired_difference_of_scores_and_of_01_items() -> None:
    a = np.array([0.9, 0.8, 0.7, 0.95, 0.6, 0.85])
    b = np.array([0.5, 0.6, 0.6, 0.55, 0.4, 0.5])
    res = paired_difference(a, b, ["x", "x", "y", "y", "z", "z"], binary=False)
    assert res.diff.estimate == pytest.approx(np.mean(a - b))
    assert res.diff.se == pytest.approx(cluster_mean(a - b, ["x", "x", "y", "y", "z", "z"]).se)
    assert res.p_value == pytest.approx(2 / 8)  # 3 clusters all positive: only ± all-same reach the total
    assert res.pearson == pytest.approx(float(sps.pearsonr(a, b).statistic))
    assert res.spearman == pytest.approx(float(sps.spearmanr(a, b).statistic))
    ones = paired_difference([1] * 20, [0] * 20, range(20), binary=True)
    assert ones.test == "mcnemar-exact" and ones.p_value == pytest.approx(2 * 0.5**20)
    assert ones.pearson is None and ones.diff.estimate == 1.0


def test_correlation_of_a_constant_side_is_undefined() -> None:
    assert correlation([1, 1, 1], [0, 1, 0]) == (None, None)


def test_bh_matches_the_step_up_rule_by_hand() -> None:
    # sorted p 0.01, 0.02, 0.03, 0.5 (m = 4): p·m/rank = 0.04, 0.04, 0.04, 0.5, monotone from the top
    assert bh_adjust([0.03, 0.01, 0.5, 0.02]) == pytest.approx([0.04, 0.04, 0.5, 0.04])
    assert bh_adjust([]) == []


def test_mde_matches_the_spec_and_statsmodels_power() -> None:
    sd = math.sqrt(0.25)
    mde = minimum_detectable_difference(500, sd, rho=0.5)
    assert mde == pytest.approx(2.8016 * math.sqrt(0.25 / 500), rel=1e-3)  # ≈ 6.3 points
    assert minimum_detectable_difference(18, sd) == pytest.approx(0.33, abs=0.005)
    # statsmodels' normal power for one sample of differences (ratio=0): effect = MDE / σ_d
    sd_d = math.sqrt(2 * 0.25 - 2 * 0.5 * 0.25)
    effect = NormalIndPower().solve_power(nobs1=500, alpha=0.05, power=0.8, ratio=0)
    assert mde == pytest.approx(effect * sd_d, rel=1e-3)
    assert minimum_detectable_difference(100, 1.0, design_effect=2.0) == pytest.approx(
        minimum_detectable_difference(50, 1.0)
    )


def test_weighted_cluster_mean_equals_statsmodels_cluster_robust_wls() -> None:
    # a pooled rate Σ awarded / Σ max as the max-weighted mean of per-item rates
    rng = np.random.default_rng(5)
    groups = np.repeat(np.arange(9), rng.integers(1, 4, size=9))
    maxima = rng.integers(2, 20, size=groups.size).astype(float)
    awarded = np.floor(maxima * rng.uniform(size=groups.size))
    rate = awarded / maxima
    iv = cluster_mean(rate, groups, weights=maxima)
    assert iv.estimate == pytest.approx(awarded.sum() / maxima.sum())
    fit = sm.WLS(rate, np.ones_like(rate), weights=maxima).fit(
        cov_type="cluster", cov_kwds={"groups": groups}, use_t=True
    )
    assert iv.se == pytest.approx(float(fit.bse[0]), rel=1e-10)
    assert cluster_mean(rate, groups, weights=np.ones_like(rate)) == cluster_mean(rate, groups)

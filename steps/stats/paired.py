"""Two agents on the same items (docs/statistics.md §2): the paired difference with its clustered standard error,
McNemar's exact test for 0/1 items, a seeded paired (cluster sign-flip) permutation test for scores,
Benjamini–Hochberg across the cells of one comparison, and the correlation of the two agents' item scores."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from steps.stats.intervals import DEFAULT_SEED, Interval, _codes, cluster_mean

PERMUTATIONS = 10_000


@dataclass(frozen=True)
class PairedResult:
    """A − B on the items both answered: Δ with its interval (`diff`), the test's p-value and name, and the
    Pearson and Spearman correlations of the two agents' item scores (None when either is constant)."""

    diff: Interval
    p_value: float
    test: str
    pearson: float | None
    spearman: float | None


def mcnemar_exact(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """McNemar's exact p-value for paired 0/1 outcomes: the binomial test of b = #(A right, B wrong) among the
    b + c discordant items (statsmodels `mcnemar(exact=True)`); 1.0 without discordant items."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if not np.isin(x, (0.0, 1.0)).all() or not np.isin(y, (0.0, 1.0)).all():
        raise ValueError("McNemar's test takes 0/1 outcomes")
    table = [
        [int(np.sum((x == 1) & (y == 1))), int(np.sum((x == 1) & (y == 0)))],
        [int(np.sum((x == 0) & (y == 1))), int(np.sum((x == 0) & (y == 0)))],
    ]
    if table[0][1] + table[1][0] == 0:
        return 1.0
    return float(mcnemar(table, exact=True).pvalue)


def permutation_p(
    d: Sequence[float] | np.ndarray,
    clusters: Sequence[object] | np.ndarray,
    draws: int = PERMUTATIONS,
    seed: int = DEFAULT_SEED,
) -> float:
    """Two-sided p-value of a paired permutation test: under no difference each cluster's summed difference is as
    likely negated, so the null distribution flips the signs of the cluster sums (scipy `permutation_test`,
    exact when 2^G ≤ draws)."""
    diffs = np.asarray(d, dtype=float)
    codes = _codes(clusters, diffs.size)
    sums = np.bincount(codes, weights=diffs, minlength=int(codes.max()) + 1)
    if not np.any(sums) or sums.size < 2:  # one cluster: both sign patterns reach |total|, p = 1
        return 1.0
    if sums.size > MANY_CLUSTERS:
        return sign_flip_p(sums, draws, seed)

    def total(x: np.ndarray, axis: int) -> np.ndarray:
        return np.sum(x, axis=axis)

    res = sps.permutation_test(
        (sums,), total, permutation_type="samples", vectorized=True, n_resamples=draws, rng=np.random.default_rng(seed)
    )
    return float(min(1.0, res.pvalue))


MANY_CLUSTERS = 2000  # above this, `sign_flip_p` (scipy's test takes 46 s and 6 GB at 10,000 clusters)
FLIP_CHUNK = 500  # sign-flip draws evaluated at once: memory FLIP_CHUNK × clusters


def sign_flip_p(sums: np.ndarray, draws: int = PERMUTATIONS, seed: int = DEFAULT_SEED) -> float:
    """The randomised sign-flip test of Σ sums with scipy `permutation_test`'s two-sided p-value (its `samples`
    test of one sample: 2·min(P(T* ≤ T), P(T* ≥ T)) with the +1 correction and its relative tolerance), the
    draws made in chunks as a ±1 matrix times the cluster sums: seconds and megabytes where scipy, which permutes
    every draw's clusters at once, takes minutes and gigabytes (LawBench's 10,000 items)."""
    rng = np.random.default_rng(seed)
    observed = float(sums.sum())
    gamma = abs(np.finfo(float).eps * 100 * observed)
    less = greater = 0
    for start in range(0, draws, FLIP_CHUNK):
        k = min(FLIP_CHUNK, draws - start)
        signs = rng.integers(0, 2, size=(k, sums.size), dtype=np.int8) * 2 - 1
        null = signs @ sums
        less += int(np.sum(null <= observed + gamma))
        greater += int(np.sum(null >= observed - gamma))
    return float(min(1.0, 2 * min((less + 1) / (draws + 1), (greater + 1) / (draws + 1))))


def correlation(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> tuple[float | None, float | None]:
    """Pearson's and Spearman's correlation of paired scores (scipy); None where undefined (a constant side,
    fewer than three items)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None, None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pr = float(sps.pearsonr(x, y).statistic)
        sr = float(sps.spearmanr(x, y).statistic)
    return (None if math.isnan(pr) else pr), (None if math.isnan(sr) else sr)


def paired_difference(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    clusters: Sequence[object] | np.ndarray,
    binary: bool,
    draws: int = PERMUTATIONS,
    seed: int = DEFAULT_SEED,
    alpha: float = 0.05,
    top: float = 1.0,
    weights: Sequence[float] | np.ndarray | None = None,
) -> PairedResult:
    """Δ = mean(a − b) over paired items with its clustered SE and t interval (`cluster_mean` of the
    differences); p from McNemar's exact test when `binary` (outcomes 0/`top`, e.g. 0/100), else from the cluster
    sign-flip permutation test. With `weights` (an item's maximum points, the same for both agents) Δ is the
    weighted mean of the differences and the test flips the clusters' weighted sums."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise ValueError("paired scores differ in length")
    w = np.ones_like(x) if weights is None else np.asarray(weights, dtype=float)
    diff = cluster_mean(x - y, clusters, alpha, weights=w)
    if binary:
        p, test = mcnemar_exact(x / top, y / top), "mcnemar-exact"
    else:
        p, test = permutation_p(w * (x - y), clusters, draws, seed), f"permutation({draws})"
    pearson, spearman = correlation(x, y)
    return PairedResult(diff, p, test, pearson, spearman)


def bh_adjust(p_values: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg adjusted p-values (statsmodels `multipletests(method="fdr_bh")`), in input order."""
    if not p_values:
        return []
    return [float(v) for v in multipletests(list(p_values), method="fdr_bh")[1]]

"""One agent, one number: Wilson intervals for proportions, clustered standard errors for means, and a seeded,
vectorised cluster bootstrap for every statistic that is not a mean of items (docs/statistics.md).

A bootstrap replicate draws each stratum's clusters with replacement; drawing cluster c k times is the same as
giving it weight k, so a replicate is a weight vector over clusters and every statistic built from per-cluster
sums (sums of scores and item counts per cell, true and false positives of a corpus F-score) is recomputed for all
replicates at once as `weights @ sums`. The statistic then maps the (B, m) weighted totals to B numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint

Z95 = 1.959963984540054
DEFAULT_B = 2000
DEFAULT_SEED = 20240611


@dataclass(frozen=True)
class Interval:
    """A point estimate with its standard error and (1 - alpha) interval; `method` names how they were made
    (`wilson`, `cluster-se(t, G=62)`, `cluster-bootstrap(B=2000)`). Undefined parts are None (one cluster)."""

    estimate: float
    se: float | None
    low: float | None
    high: float | None
    method: str
    n: int
    clusters: int

    def columns(self) -> dict[str, object]:
        """The interval as a cell's row columns: estimate, n, clusters, se, ci_low, ci_high, ci_method."""
        return {
            "estimate": self.estimate,
            "n": self.n,
            "clusters": self.clusters,
            "se": self.se,
            "ci_low": self.low,
            "ci_high": self.high,
            "ci_method": self.method,
        }

    @property
    def half_width(self) -> float | None:
        """Half the interval's width (what `71.2 ± 3.1` prints); None without an interval."""
        if self.low is None or self.high is None:
            return None
        return (self.high - self.low) / 2

    def scaled(self, factor: float) -> Interval:
        """The same interval in other units (a share as percentage points: factor 100)."""

        def _s(v: float | None) -> float | None:
            return None if v is None else v * factor

        return Interval(
            self.estimate * factor, _s(self.se), _s(self.low), _s(self.high), self.method, self.n, self.clusters
        )


def wilson(successes: int, n: int, alpha: float = 0.05) -> Interval:
    """Wilson score interval of a proportion (statsmodels `proportion_confint(method="wilson")`); the standard
    error is the binomial √(p̂(1−p̂)/n). Stays inside [0, 1] and is not [1, 1] at p̂ = 1."""
    if n <= 0:
        raise ValueError("a proportion needs at least one item")
    if not 0 <= successes <= n:
        raise ValueError(f"successes {successes} outside 0..{n}")
    p = successes / n
    low, high = proportion_confint(successes, n, alpha=alpha, method="wilson")
    return Interval(p, math.sqrt(p * (1 - p) / n), float(low), float(high), "wilson", n, n)


def wilson_effective(
    shares: Sequence[float] | np.ndarray, clusters: Sequence[object] | np.ndarray, alpha: float = 0.05
) -> Interval:
    """A win rate of clustered items (each a share in [0, 1]: 1 a win, 0.5 a tie, 0 a loss): the Wilson interval
    at the effective sample size (Kish; Korn & Graubard 1998), so that it is neither degenerate at 0 % or 100 %
    nor narrower than the clustering allows:

        n_eff = p̂(1 − p̂) / SE²,   bounded to [G, n];   n_eff = G when p̂ is 0 or 1 (SE 0 says nothing then)

    SE the clustered (CR1) standard error of the mean, G the clusters, n the items; then statsmodels'
    `proportion_confint(p̂·n_eff, n_eff, method="wilson")`. n_eff = G counts each cluster once (its items moving
    together), n_eff = n treats the items as independent 0/1 items. `se` is the clustered SE."""
    s = np.asarray(shares, dtype=float)
    if s.size == 0:
        raise ValueError("a rate needs at least one item")
    if (s < 0).any() or (s > 1).any():
        raise ValueError("a win share lies in [0, 1]")
    base = cluster_mean(s, clusters, alpha)
    p, g, n = base.estimate, base.clusters, base.n
    se = base.se or 0.0
    if p <= 0.0 or p >= 1.0:
        n_eff = float(g)
    elif se > 0:
        n_eff = min(max(p * (1 - p) / se**2, float(g)), float(n))
    else:
        n_eff = float(n)
    low, high = proportion_confint(p * n_eff, n_eff, alpha=alpha, method="wilson")
    return Interval(p, base.se, float(low), float(high), f"wilson-eff(n={n_eff:.1f}, G={g})", n, g)


def wilson_aggregate(
    boot: Interval, clusters_eff: float, items_eff: float, scale: float = 1.0, alpha: float = 0.05
) -> Interval:
    """An average of win rates (UCL-Bench's AVG: the mean of its tasks' rates) as `wilson_effective` gives a task's
    rate: the Wilson interval at n_eff = p̂(1 − p̂)/SE², SE the cluster bootstrap's (`boot`, on `scale`: 100 for
    percent), bounded to [G_eff, n_eff,max], and n_eff = G_eff at p̂ 0 or 1, where the bootstrap's SE 0 says
    nothing. G_eff and n_eff,max are Kish's effective numbers of clusters and items under the average's weights
    (`clusters_eff`, `items_eff`: (Σw)²/Σw², each item weighted by its task's weight over the task's items, a
    cluster by its items' sum): the clusters and the items when the tasks are equally large. Without a bootstrap
    SE (one cluster), `boot` unchanged."""
    if boot.se is None:
        return boot
    p, se = boot.estimate / scale, boot.se / scale
    if p <= 1e-12 or p >= 1.0 - 1e-12:  # a mean of rates all 0 or all 1, up to rounding
        n_eff = clusters_eff
    elif se > 0:
        n_eff = min(max(p * (1 - p) / se**2, clusters_eff), items_eff)
    else:
        n_eff = items_eff
    p = min(max(p, 0.0), 1.0)
    low, high = proportion_confint(p * n_eff, n_eff, alpha=alpha, method="wilson")
    method = f"wilson-eff(n={n_eff:.1f}, G={clusters_eff:.1f}; {boot.method} SE)"
    return Interval(boot.estimate, boot.se, float(low) * scale, float(high) * scale, method, boot.n, boot.clusters)


def cluster_mean(
    scores: Sequence[float] | np.ndarray,
    clusters: Sequence[object] | np.ndarray,
    alpha: float = 0.05,
    weights: Sequence[float] | np.ndarray | None = None,
) -> Interval:
    """Mean of item scores with a cluster-robust (CR1) standard error:

        SE = √(Σ_c (Σ_{i∈c} (s_i − s̄))²) / n · √(G / (G − 1)),   interval s̄ ± t_{G−1, 1−α/2} · SE

    G the number of clusters; with one item per cluster this is the usual s/√n. Equal to statsmodels' OLS on a
    constant with `cov_type="cluster"`. With `weights` w (points per item: a pooled rate Σ awarded / Σ maximum is
    the w-weighted mean of the items' rates) the mean is Σ w s / Σ w and the sums are of w_i (s_i − s̄), over
    Σ w instead of n (the linearised ratio estimator; statsmodels' WLS with clusters). Fewer than two clusters:
    no standard error."""
    s = np.asarray(scores, dtype=float)
    if s.size == 0:
        raise ValueError("a mean needs at least one item")
    w = np.ones_like(s) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != s.shape or (w < 0).any() or w.sum() <= 0:
        raise ValueError("weights must be non-negative, one per item, not all zero")
    codes = _codes(clusters, s.size)
    g = int(codes.max()) + 1
    mean = float(w @ s / w.sum())
    if g < 2:
        return Interval(mean, None, None, None, f"cluster-se(t, G={g})", int(s.size), g)
    resid = np.bincount(codes, weights=w * (s - mean), minlength=g)
    se = math.sqrt(float(resid @ resid)) / float(w.sum()) * math.sqrt(g / (g - 1))
    t = float(sps.t.ppf(1 - alpha / 2, g - 1))
    return Interval(mean, se, mean - t * se, mean + t * se, f"cluster-se(t, G={g})", int(s.size), g)


def _codes(labels: Sequence[object] | np.ndarray, size: int) -> np.ndarray:
    """Integer codes 0..G-1 of cluster labels, in order of first appearance."""
    arr = np.asarray(labels, dtype=object)
    if arr.shape != (size,):
        raise ValueError(f"{arr.shape[0] if arr.ndim else 0} cluster labels for {size} items")
    index: dict[object, int] = {}
    return np.fromiter((index.setdefault(v, len(index)) for v in arr.tolist()), dtype=np.int64, count=size)


@dataclass(frozen=True)
class ClusterSums:
    """Per-cluster sums of the quantities a statistic is built from: `sums[c, j]` is cluster c's total of column
    j (a cell's summed scores, its item count, a corpus's true positives …); `strata[c]` the stratum the cluster is
    resampled within (None: one stratum); `n` items in all."""

    sums: np.ndarray
    strata: np.ndarray | None
    n: int

    @classmethod
    def from_items(
        cls,
        values: np.ndarray,
        clusters: Sequence[object] | np.ndarray,
        strata: Sequence[object] | np.ndarray | None = None,
    ) -> ClusterSums:
        """Sum the item rows `values` (n, m) over their clusters; a cluster lies in one stratum."""
        vals = np.asarray(values, dtype=float)
        if vals.ndim == 1:
            vals = vals[:, None]
        codes = _codes(clusters, vals.shape[0])
        g = int(codes.max()) + 1 if codes.size else 0
        sums = np.zeros((g, vals.shape[1]))
        np.add.at(sums, codes, vals)
        st = None
        if strata is not None:
            scodes = _codes(strata, vals.shape[0])
            st = np.full(g, -1, dtype=np.int64)
            st[codes] = scodes
            if np.any(st[codes] != scodes):
                raise ValueError("a cluster spans two strata")
        return cls(sums, st, int(vals.shape[0]))


CHUNK = 256  # replicates drawn and evaluated at once: bounds memory at CHUNK × G weights


def bootstrap_weights(strata: np.ndarray | None, g: int, b: int, rng: np.random.Generator) -> np.ndarray:
    """(b, G) counts of how often each cluster is drawn in each of b replicates: each stratum's k clusters drawn
    k times with replacement (uniform indices, counted per replicate)."""
    weights = np.zeros((b, g))
    groups = [np.arange(g)] if strata is None else [np.flatnonzero(strata == s) for s in np.unique(strata)]
    for idx in groups:
        k = idx.size
        draws = rng.integers(0, k, size=(b, k)) + (np.arange(b) * k)[:, None]
        weights[:, idx] = np.bincount(draws.ravel(), minlength=b * k).reshape(b, k)
    return weights


def cluster_bootstrap(
    data: ClusterSums,
    statistic: Callable[[np.ndarray], np.ndarray],
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
    alpha: float = 0.05,
) -> Interval:
    """Percentile cluster bootstrap of `statistic`, a function of the (B, m) weighted column totals returning B
    values (the point estimate is the statistic of the plain totals). SE is the replicates' SD. Seeded: the same
    data, B and seed give the same interval. Replicates where the statistic is undefined (NaN) are dropped.
    Replicates are drawn in chunks of `CHUNK` from one generator, so memory stays CHUNK × G."""
    g = data.sums.shape[0]
    estimate = float(np.asarray(statistic(data.sums.sum(axis=0)[None, :]), dtype=float)[0])
    if g < 2:
        return Interval(estimate, None, None, None, f"cluster-bootstrap(B={b})", data.n, g)
    rng = np.random.default_rng(seed)
    chunks = []
    for start in range(0, b, CHUNK):
        weights = bootstrap_weights(data.strata, g, min(CHUNK, b - start), rng)
        chunks.append(np.asarray(statistic(weights @ data.sums), dtype=float))
    reps = np.concatenate(chunks)
    reps = reps[~np.isnan(reps)]
    if reps.size < 2:
        return Interval(estimate, None, None, None, f"cluster-bootstrap(B={b})", data.n, g)
    low, high = np.percentile(reps, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return Interval(estimate, float(reps.std(ddof=1)), float(low), float(high), f"cluster-bootstrap(B={b})", data.n, g)


def ratio(num: int, den: int) -> Callable[[np.ndarray], np.ndarray]:
    """The statistic `totals[:, num] / totals[:, den]` (a mean of items from its sum and count columns)."""

    def stat(totals: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return totals[:, num] / totals[:, den]

    return stat


def mean_of_ratios(pairs: Sequence[tuple[int, int]]) -> Callable[[np.ndarray], np.ndarray]:
    """The unweighted average over cells of each cell's mean (sum column / count column): an average of task
    averages, as the papers' headline aggregates are."""
    nums = np.array([p[0] for p in pairs])
    dens = np.array([p[1] for p in pairs])

    def stat(totals: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.mean(totals[:, nums] / totals[:, dens], axis=1)

    return stat

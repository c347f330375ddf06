"""Intervals for the cells of a report from a benchmark's item-level scores (docs/statistics.md).

A benchmark registers a function (`Benchmark.item_scores`) that returns `ItemScores`: one row per agent × cell ×
item (`ITEM_COLUMNS`; `score` NaN where the item was left out of the cell, e.g. a failed model call) and its
aggregates, the cells that are weighted means of other cells' means (an average of task averages; nested
aggregates allowed). Every base cell gets its interval from its items (Wilson for 0/1 items that are their own
clusters, else the clustered SE); every aggregate a percentile cluster bootstrap that resamples the units of all
its component cells at once and recomputes every level.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from steps.stats.intervals import (
    DEFAULT_B,
    DEFAULT_SEED,
    ClusterSums,
    Interval,
    cluster_bootstrap,
    cluster_mean,
    wilson,
    wilson_aggregate,
    wilson_effective,
)

ITEM_COLUMNS = ["agent", "table", "scope", "metric", "item", "cluster", "score", "kind"]
WEIGHT = "weight"  # optional: an item's weight in its cell's mean (its maximum points in a pooled rate); 1 if absent
STRATUM = "stratum"  # optional: the stratum a bootstrap resamples an item's cluster within (LawBench: its task)
KINDS = ("proportion", "percent", "rate", "mean")
CELL = ["table", "scope", "metric"]
INTERVAL_COLUMNS = ["se", "ci_low", "ci_high", "ci_method"]

Key = tuple[str, str, str]  # (table, scope, metric)


@dataclass(frozen=True)
class ItemScores:
    """Item-level scores of a benchmark's runs, on the scale its CSV twin reports. `kind`: `proportion` (0/1
    items, a share), `percent` (0/100 items, a share in percent), `rate` (a win rate in percent whose items are
    0, 50 or 100: a tie is half a win; Wilson at the effective sample size) or `mean` (any score). `aggregates`: cell →
    {component cell: weight}, the cell being the weighted sum of its components' values (weights 1/k for an
    average of k cells). An optional `weight` column makes a cell the weighted mean Σ w·score / Σ w (a pooled
    rate Σ awarded / Σ maximum: score = awarded / maximum, weight = maximum). `power`: the cells (per task or
    scenario, and the headline) whose smallest detectable difference the data card lists; `scale`: the range of
    an item's score (100 for points on 0–100, 1 for a fraction), whose half is the largest SD an item can have
    (steps/stats/power.py). `corpus`: base cells whose number is a statistic of the corpus rather than a mean of
    items (a corpus F-score Σ num / Σ den, given as score num/den and weight den): they get the cluster bootstrap,
    not the linearised SE. An optional `stratum` column makes every bootstrap resample clusters within strata."""

    items: pd.DataFrame
    aggregates: Mapping[Key, Mapping[Key, float]] = field(default_factory=dict)
    power: tuple[Key, ...] = ()
    scale: float = 100.0
    corpus: frozenset[Key] = frozenset()

    def __post_init__(self) -> None:
        missing = [c for c in ITEM_COLUMNS if c not in self.items.columns]
        if missing:
            raise ValueError(f"item scores lack the column(s) {', '.join(missing)}")
        bad = set(self.items.kind) - set(KINDS)
        if bad:
            raise ValueError(f"unknown kind(s) of cell: {', '.join(sorted(bad))}")


def weights_of(items: pd.DataFrame) -> np.ndarray:
    """The items' weights (1 where the frame has no `weight` column)."""
    return items[WEIGHT].to_numpy(dtype=float) if WEIGHT in items else np.ones(len(items))


def base_interval(scores: np.ndarray, clusters: np.ndarray, kind: str, weights: np.ndarray | None = None) -> Interval:
    """A base cell's interval: Wilson when its items are unweighted, each their own cluster and of kind
    `proportion` (0/1) or `percent` (0/100, a share in percent); Wilson at the effective sample size for a `rate`
    (`wilson_effective`); otherwise the (weighted) mean with its clustered standard error."""
    if weights is not None and not np.all(weights == 1.0):
        return cluster_mean(scores, clusters, weights=weights)
    singletons = len(set(clusters.tolist())) == scores.size
    if kind == "proportion" and singletons and np.isin(scores, (0.0, 1.0)).all():
        return wilson(int(scores.sum()), int(scores.size))
    if kind == "percent" and singletons and np.isin(scores, (0.0, 100.0)).all():
        return wilson(int((scores == 100.0).sum()), int(scores.size)).scaled(100.0)
    if kind == "rate":
        return wilson_effective(scores / 100.0, clusters).scaled(100.0)
    return cluster_mean(scores, clusters)


def flatten(key: Key, aggregates: Mapping[Key, Mapping[Key, float]], depth: int = 0) -> dict[Key, float]:
    """The aggregate `key` as weights over base cells (nested aggregates expanded)."""
    if depth > 10:
        raise ValueError(f"aggregate {key} nests too deep (a cycle?)")
    if key not in aggregates:
        return {key: 1.0}
    out: dict[Key, float] = {}
    for part, w in aggregates[key].items():
        for base, v in flatten(part, aggregates, depth + 1).items():
            out[base] = out.get(base, 0.0) + w * v
    return out


def aggregate_interval(
    items: pd.DataFrame,
    weights: Mapping[Key, float],
    b: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
    positions: Mapping[Key, np.ndarray] | None = None,
) -> Interval | None:
    """The cluster bootstrap of Σ_k w_k · mean_k (each a weighted mean if the items have weights) over the base
    cells `weights`, from one agent's scored items
    (`positions`: each cell's row positions in `items`, when already known); None when a component has no scored
    item."""
    where = positions if positions is not None else items.groupby(CELL, sort=False).indices
    keys = list(weights)
    if not all(len(where.get(k, ())) for k in keys):
        return None
    used = np.unique(np.concatenate([where[k] for k in keys]))
    local = np.full(len(items), -1)
    local[used] = np.arange(used.size)
    score, weight = items.score.to_numpy(dtype=float), weights_of(items)
    part = np.zeros((used.size, 2 * len(keys)))
    for j, key in enumerate(keys):
        rows = where[key]
        part[local[rows], 2 * j] = weight[rows] * score[rows]
        part[local[rows], 2 * j + 1] = weight[rows]
    clusters = items.cluster.to_numpy()[used]
    w = np.array([weights[k] for k in keys])
    note = ""
    strata = items[STRATUM].to_numpy()[used] if STRATUM in items else None
    if strata is not None:
        rows_of = [local[where[k]] for k in keys]
        part, w, strata, note = collapse_lonely_strata(part, w, clusters, strata, rows_of)
    data = ClusterSums.from_items(part, clusters, strata)

    def statistic(totals: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return (totals[:, 0::2] / totals[:, 1::2]) @ w

    iv = cluster_bootstrap(data, statistic, b=b, seed=seed)
    return replace(iv, method=f"{iv.method[:-1]}; {note})") if note else iv


COLLAPSED = ("collapsed",)  # the stratum label of the collapsed one-cluster strata (a tuple: no item's label)


def collapse_lonely_strata(
    part: np.ndarray, w: np.ndarray, clusters: np.ndarray, strata: np.ndarray, rows_of: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """Collapse the strata that hold a single cluster, so that the bootstrap can see their variance.

    A stratum of one cluster is drawn once in every replicate: its cell's mean never moves, and an aggregate of
    such cells (LawBench at one item per task) would read `± 0.0`. The components (`part`'s column pairs: weighted
    sum, weight; `rows_of[j]`: component j's rows) whose rows are one cluster alone in its stratum and in no other
    component are replaced by one pseudo-cell, the w-weighted mean of their means, whose clusters are resampled
    together in one stratum: the collapsed-strata estimator, which counts the between-stratum spread as variance
    (conservative). Returns the new columns, component weights and strata, and a note for the method ('' when no
    stratum has one cluster); a single such component cannot be collapsed and is held fixed, as before."""
    per_stratum = pd.Series(clusters).groupby(strata).nunique()
    lonely_strata = set(per_stratum.index[per_stratum == 1])
    if not lonely_strata:
        return part, w, strata, ""
    owner = np.full(part.shape[0], -1)
    shared = np.zeros(part.shape[0], dtype=bool)
    for j, rows in enumerate(rows_of):
        shared[rows] |= owner[rows] >= 0
        owner[rows] = j
    lonely = []
    for j, rows in enumerate(rows_of):
        own = np.unique(clusters[rows])
        if own.size != 1 or strata[rows[0]] not in lonely_strata or part[rows, 2 * j + 1].sum() <= 0:
            continue
        mine = clusters == own[0]
        if np.all(owner[mine] == j) and not shared[mine].any():
            lonely.append(j)
    if len(lonely) < 2:
        return part, w, strata, f"{_strata(len(lonely_strata))} held fixed"
    keep = [j for j in range(w.size) if j not in lonely]
    columns = [c for j in keep for c in (2 * j, 2 * j + 1)]
    pseudo = np.zeros((part.shape[0], 2))
    total = float(w[lonely].sum())
    new_strata = strata.astype(object)
    for j in lonely:
        rows = rows_of[j]
        share = w[j] / total / part[rows, 2 * j + 1].sum()
        pseudo[rows, 0] = share * part[rows, 2 * j]
        pseudo[rows, 1] = share * part[rows, 2 * j + 1]
        for r in rows:
            new_strata[r] = COLLAPSED
    held = len(lonely_strata) - len(lonely)
    note = f"{_strata(len(lonely))} collapsed" + (f", {held} held fixed" if held else "")
    return np.hstack([part[:, columns], pseudo]), np.append(w[keep], total), new_strata, note


def _strata(count: int) -> str:
    return f"{count} one-cluster {'stratum' if count == 1 else 'strata'}"


def cell_intervals(scores: ItemScores, b: int = DEFAULT_B, seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """One row per agent × cell (base and aggregate): agent, table, scope, metric, estimate, n, clusters, se,
    ci_low, ci_high, ci_method. Items with no score are left out."""
    scored = scores.items[scores.items.score.notna()]
    out = []
    for (agent, table, scope, metric), part in scored.groupby(["agent", *CELL], sort=True):
        key = (str(table), str(scope), str(metric))
        if key in scores.corpus:
            iv = aggregate_interval(part.reset_index(drop=True), {key: 1.0}, b, seed)
        else:
            iv = base_interval(
                part.score.to_numpy(dtype=float), part.cluster.to_numpy(), str(part.kind.iloc[0]), weights_of(part)
            )
        if iv is not None:
            out.append(_row(str(agent), key, iv))
    for agent, mine in scored.groupby("agent", sort=True):
        mine = mine.reset_index(drop=True)
        positions = mine.groupby(CELL, sort=False).indices
        for key in sorted(scores.aggregates):
            weights = flatten(key, scores.aggregates)
            agg = aggregate_interval(mine, weights, b, seed, positions)
            if agg is not None and _all_rates(mine, weights, positions):
                agg = wilson_aggregate(agg, *_kish(mine, weights, positions), scale=100.0)  # rates: shares × 100
            if agg is not None:
                out.append(_row(str(agent), key, agg))
    columns = ["agent", *CELL, "estimate", "n", "clusters", *INTERVAL_COLUMNS]
    return pd.DataFrame(out, columns=columns)


def _all_rates(items: pd.DataFrame, weights: Mapping[Key, float], positions: Mapping[Key, np.ndarray]) -> bool:
    """Whether every base cell of an aggregate is a win rate (kind `rate`, unweighted items)."""
    kinds = items.kind.to_numpy()
    return WEIGHT not in items and all(np.all(kinds[positions[k]] == "rate") for k in weights)


def _kish(
    items: pd.DataFrame, weights: Mapping[Key, float], positions: Mapping[Key, np.ndarray]
) -> tuple[float, float]:
    """Kish's effective numbers of clusters and of items of an aggregate Σ_k w_k · mean_k: each item weighted
    w_k / n_k, a cluster by the sum of its items' weights; (Σw)²/Σw² of each."""
    rows = np.concatenate([positions[k] for k in weights])
    each = np.concatenate([np.full(len(positions[k]), w / len(positions[k])) for k, w in weights.items()])
    per_cluster = pd.Series(each).groupby(items.cluster.to_numpy()[rows]).sum().to_numpy()
    return float(per_cluster.sum() ** 2 / (per_cluster**2).sum()), float(each.sum() ** 2 / (each**2).sum())


def _row(agent: str, key: Key, iv: Interval) -> dict[str, object]:
    return {"agent": agent, "table": key[0], "scope": key[1], "metric": key[2], **iv.columns()}


def attach_intervals(rows: pd.DataFrame, cells: pd.DataFrame, tolerance: float = 1e-4, digits: int = 6) -> pd.DataFrame:
    """`rows` (long rows) with `se`, `ci_low`, `ci_high`, `ci_method` filled on our rows that have a cell in
    `cells`, empty elsewhere (the paper's rows, diagnostics). A cell whose recomputed estimate differs from the
    reported value by more than `tolerance` (relative to max(1, |value|)) is an error: the item scores do not
    describe the number they would give an interval to."""
    keys = ["agent", *CELL]
    merged = rows.merge(
        cells[[*keys, "estimate", *INTERVAL_COLUMNS]].assign(source="ours"),
        on=[*keys, "source"],
        how="left",
        validate="many_to_one",
    )
    value = pd.to_numeric(merged.value, errors="coerce").astype(float)
    check = merged.estimate.notna() & value.notna()
    off = check & ((merged.estimate - value).abs() > tolerance * np.maximum(1.0, value.abs()))
    if off.any():
        r = merged[off].iloc[0]
        raise ValueError(
            f"interval of {r.agent}/{r.table}/{r.scope}/{r.metric}: the items give {r.estimate:.6g}, "
            f"the report {r.value!r}"
        )
    out = merged.drop(columns="estimate")
    for c in ("se", "ci_low", "ci_high"):
        out[c] = out[c].astype(float).round(digits)
    out["ci_method"] = out.ci_method.astype(object).where(out.ci_method.notna(), None)
    return out


def half_width(low: object, high: object) -> float | None:
    """Half an interval's width, None when either end is missing."""
    try:
        lo, hi = float(low), float(high)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return None if math.isnan(lo) or math.isnan(hi) else (hi - lo) / 2


def read_each(read: Callable[[list[str]], ItemScores], agents: Iterable[str]) -> ItemScores | None:
    """The item scores of `agents`, each read alone by `read` (a benchmark's registered `item_scores` with its
    paths): an agent whose scores cannot be read yet (a run not judged) is left out; None when none can be."""
    found = []
    for agent in agents:
        try:
            found.append(read([agent]))
        except (OSError, KeyError, ValueError):
            continue
    if not found:
        return None
    return replace(found[0], items=pd.concat([f.items for f in found], ignore_index=True))

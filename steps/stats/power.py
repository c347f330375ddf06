"""The smallest difference a benchmark can resolve (docs/statistics.md §3)."""

from __future__ import annotations

import math

import pandas as pd
from scipy.stats import norm

from steps.stats.cells import CELL, ItemScores, flatten

RHO = 0.5  # the assumed correlation of two models' item scores by default (params.yaml `stats.rho`)


def minimum_detectable_difference(
    n: float,
    sd_a: float,
    sd_b: float | None = None,
    rho: float = 0.5,
    alpha: float = 0.05,
    power: float = 0.8,
    design_effect: float = 1.0,
) -> float:
    """MDE of a paired comparison, two-sided α, power 1 − β:

        (z_{1−α/2} + z_{1−β}) · √((σ_A² + σ_B² − 2ρσ_Aσ_B) / n_eff),   n_eff = n / design_effect

    σ_B defaults to σ_A; for 0/1 items σ² = p(1 − p); `design_effect` is Kish's 1 + (m̄ − 1)·ICC for clusters of
    mean size m̄."""
    if n <= 0:
        raise ValueError("n must be positive")
    sb = sd_a if sd_b is None else sd_b
    var = sd_a**2 + sb**2 - 2 * rho * sd_a * sb
    z = float(norm.ppf(1 - alpha / 2) + norm.ppf(power))
    return z * math.sqrt(max(var, 0.0) * design_effect / n)


def power_table(scores: ItemScores, rho: float = RHO, alpha: float = 0.05, power: float = 0.8) -> pd.DataFrame:
    """The smallest detectable difference of each of `scores.power`'s cells: `items` the scored items of the
    largest run (an aggregate: its units), `clusters` their clusters, `mde_items` treating the items as
    independent, `mde_clusters` treating each cluster as one unit (items in a cluster fully correlated), both
    with the largest SD an item on the benchmark's scale can have (scale / 2, a 0/1 item at p = 0.5), on that
    scale. The truth lies between the two columns, by how alike a cluster's items are (Kish's design effect)."""
    scored = scores.items[scores.items.score.notna()]
    index = scored.set_index(CELL).index
    sd = scores.scale / 2
    rows = []
    for key in scores.power:
        parts = flatten(key, scores.aggregates)
        mine = scored[index.isin(list(parts))]
        if mine.empty:
            continue
        per_agent = mine.groupby("agent").agg(items=("item", "size"), clusters=("cluster", "nunique"))
        best = per_agent.sort_values(["clusters", "items"]).iloc[-1]
        items = int(best.clusters) if key in scores.aggregates else int(best["items"])
        g = int(best.clusters)
        rows.append(
            {
                "table": key[0],
                "scope": key[1],
                "metric": key[2],
                "items": items,
                "clusters": g,
                "mde_items": minimum_detectable_difference(items, sd, rho=rho, alpha=alpha, power=power),
                "mde_clusters": minimum_detectable_difference(g, sd, rho=rho, alpha=alpha, power=power),
            }
        )
    columns = [*CELL, "items", "clusters", "mde_items", "mde_clusters"]
    return pd.DataFrame(rows, columns=columns)

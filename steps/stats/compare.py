"""Two agents on the same items, cell by cell (`jurisflow compare A B`; docs/statistics.md §2).

From a benchmark's `ItemScores` (steps/stats/cells.py): for every cell both agents have items in, the items both
answered (an item either side left unscored, e.g. a failed model call, is excluded from both and counted), Δ =
A − B with its clustered standard error and 95 % interval, a p-value (McNemar's exact test for 0/1 items, else
the cluster sign-flip permutation test), the Pearson and Spearman correlations of the two agents' item scores;
for each aggregate cell (the headline numbers) Δ of the aggregate on the paired items, its interval from the
cluster bootstrap of the paired differences and its p-value from the sign-flip test of the aggregate (linear in the
item differences; its correlations are those of the two agents' per-cluster contributions to it). p-values are
Benjamini–Hochberg adjusted across the cells of the benchmark.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from steps.stats.cells import CELL, ItemScores, aggregate_interval, flatten, weights_of
from steps.stats.intervals import DEFAULT_B, DEFAULT_SEED
from steps.stats.paired import (
    PERMUTATIONS,
    PairedResult,
    bh_adjust,
    correlation,
    paired_difference,
    permutation_p,
)

COMPARE_COLUMNS = [
    "table",
    "scope",
    "metric",
    "level",
    "n",
    "clusters",
    "n_excluded",
    "a",
    "b",
    "delta",
    "se",
    "ci_low",
    "ci_high",
    "test",
    "p",
    "p_bh",
    "pearson",
    "spearman",
]


def paired_items(scores: ItemScores, a: str, b: str) -> pd.DataFrame:
    """One row per item both agents have a row for: the cell, item, cluster, kind, weight (A's: the same items
    carry the same maximum points), score_a, score_b (NaN where that agent's item is unscored)."""
    items = scores.items.assign(weight=weights_of(scores.items))
    keys = [*CELL, "item"]
    left = items[items.agent == a][[*keys, "cluster", "kind", "weight", "score"]].rename(columns={"score": "score_a"})
    right = items[items.agent == b][[*keys, "score"]].rename(columns={"score": "score_b"})
    return left.merge(right, on=keys, how="inner", validate="one_to_one")


def cell_difference(part: pd.DataFrame, draws: int = PERMUTATIONS, seed: int = DEFAULT_SEED) -> PairedResult:
    """A − B on one base cell's paired items (`paired_items` rows both scored): McNemar's exact test where every
    item is 0/1 (or 0/100) and unweighted, else the cluster sign-flip permutation test."""
    x, y = part.score_a.to_numpy(dtype=float), part.score_b.to_numpy(dtype=float)
    w = part.weight.to_numpy(dtype=float)
    kind = str(part.kind.iloc[0])
    top = 100.0 if kind == "percent" else 1.0
    zero_one = np.isin(x, (0.0, top)).all() and np.isin(y, (0.0, top)).all()
    binary = bool(kind in ("proportion", "percent") and zero_one and np.all(w == 1.0))
    return paired_difference(x, y, part.cluster.to_numpy(), binary=binary, draws=draws, seed=seed, top=top, weights=w)


def compare(
    scores: ItemScores,
    a: str,
    b: str,
    draws: int = PERMUTATIONS,
    boot: int = DEFAULT_B,
    seed: int = DEFAULT_SEED,
) -> pd.DataFrame:
    """The paired comparison of agents `a` and `b` (`COMPARE_COLUMNS`; `level`: `cell` or `aggregate`), base
    cells first, then aggregates."""
    both = paired_items(scores, a, b)
    ok = both.score_a.notna() & both.score_b.notna()
    excluded = (~ok).groupby([both[c] for c in CELL]).sum()
    paired = both[ok]
    rows: list[dict[str, object]] = []
    for key, part in paired.groupby(CELL, sort=True):
        x, y = part.score_a.to_numpy(dtype=float), part.score_b.to_numpy(dtype=float)
        w = part.weight.to_numpy(dtype=float)
        res = cell_difference(part, draws, seed)
        rows.append(
            {
                **dict(zip(CELL, key, strict=True)),
                "level": "cell",
                "n": res.diff.n,
                "clusters": res.diff.clusters,
                "n_excluded": int(excluded.get(key, 0)),
                "a": float(w @ x / w.sum()),
                "b": float(y @ w / w.sum()),
                "delta": res.diff.estimate,
                "se": res.diff.se,
                "ci_low": res.diff.low,
                "ci_high": res.diff.high,
                "test": res.test,
                "p": res.p_value,
                "pearson": res.pearson,
                "spearman": res.spearman,
            }
        )
    for key in sorted(scores.aggregates):
        row = _aggregate(paired, excluded, key, flatten(key, scores.aggregates), draws, boot, seed)
        if row is not None:
            rows.append(row)
    out = pd.DataFrame(rows, columns=[c for c in COMPARE_COLUMNS if c != "p_bh"])
    out.insert(out.columns.get_loc("p") + 1, "p_bh", bh_adjust(out.p.tolist()) if len(out) else [])
    return out


def _aggregate(
    paired: pd.DataFrame,
    excluded: pd.Series,
    key: tuple[str, str, str],
    weights: dict[tuple[str, str, str], float],
    draws: int,
    boot: int,
    seed: int,
) -> dict[str, object] | None:
    """Δ of one aggregate on the paired items of its base cells; None when a component has no paired item."""
    cells = paired.set_index(CELL).index
    inside = {k: np.asarray(cells.isin([k])) for k in weights}
    if not all(m.any() for m in inside.values()):
        return None
    used = np.logical_or.reduce(list(inside.values()))
    part = paired[used]
    diff = part.assign(score=part.score_a - part.score_b)
    iv = aggregate_interval(diff, weights, b=boot, seed=seed)
    if iv is None:
        return None
    # the aggregate is Σ_k w_k mean_k(d) = Σ_i c_i d_i with c_i = w_k · v_i / Σ_{j∈k} v_j (v the item weights,
    # 1/n_k unweighted): a sign-flip test of the c_i d_i
    item_w = paired.weight.to_numpy(dtype=float)
    coef = np.zeros(len(paired))
    for k, m in inside.items():
        coef[m] += weights[k] * item_w[m] / item_w[m].sum()
    contrib = (coef * (paired.score_a - paired.score_b).to_numpy(dtype=float))[used]
    side_a = float(coef @ paired.score_a.to_numpy(dtype=float))
    side_b = float(coef @ paired.score_b.to_numpy(dtype=float))
    # the correlation of the two agents' per-cluster contributions to the aggregate (each unit's headline share)
    codes = pd.factorize(part.cluster)[0]
    per_a = np.bincount(codes, weights=coef[used] * part.score_a.to_numpy(dtype=float))
    per_b = np.bincount(codes, weights=coef[used] * part.score_b.to_numpy(dtype=float))
    pearson, spearman = correlation(per_a, per_b)
    return {
        **dict(zip(CELL, key, strict=True)),
        "level": "aggregate",
        "n": iv.n,
        "clusters": iv.clusters,
        "n_excluded": int(sum(int(excluded.get(k, 0)) for k in weights)),
        "a": float(side_a),
        "b": float(side_b),
        "delta": iv.estimate,
        "se": iv.se,
        "ci_low": iv.low,
        "ci_high": iv.high,
        "test": f"permutation({draws})",
        "p": permutation_p(contrib, part.cluster.to_numpy(), draws, seed),
        "pearson": pearson,
        "spearman": spearman,
    }


def agreement(scores: ItemScores, a: str, b: str) -> pd.DataFrame:
    """Per base cell, over the items both sides scored: `agree`, the share of items with the same score (two
    judges of the same transcripts: the share of verdicts they share)."""
    both = paired_items(scores, a, b).dropna(subset=["score_a", "score_b"])
    same = np.isclose(both.score_a.to_numpy(dtype=float), both.score_b.to_numpy(dtype=float), rtol=0, atol=1e-9)
    grouped = both.assign(same=same).groupby(CELL, sort=True).same.mean()
    return grouped.rename("agree").reset_index()

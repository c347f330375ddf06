"""Tie groups of a leaderboard column (`jurisflow results --ranks`, the HTML leaderboard; docs/statistics.md).

The leader (the best headline number) takes rank 1; every other agent whose paired difference with the leader on
that headline is not significant (the headline's paired test on the items both answered, `cell_p_value`,
unadjusted p ≥ α) shares it. The agents left are ranked the same way: the best of them leads the next group,
whose rank is one more than the number of agents ranked before it (competition ranking: 1, 1, 3). One test per
agent against its group's leader: BH adjustment is not applied (it would only merge more groups).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from steps.stats.cells import CELL, ItemScores, Key, flatten
from steps.stats.compare import _aggregate, cell_difference, paired_items
from steps.stats.intervals import DEFAULT_SEED
from steps.stats.paired import PERMUTATIONS

ALPHA = 0.05
RANK_BOOT = 200  # bootstrap replicates of an aggregate's Δ: only its p-value (a sign-flip test) is used here


def tie_groups(
    values: Mapping[str, float], p_value: Callable[[str, str], float | None], alpha: float = ALPHA
) -> dict[str, int]:
    """agent → rank: leader-first tie groups over `values` (agent → headline number, higher is better; ties in
    the number broken by name). `p_value(leader, other)` is the paired test's p (None: no item both answered,
    which cannot separate them: they share the rank)."""
    remaining = sorted(values, key=lambda a: (-values[a], a))
    ranks: dict[str, int] = {}
    while remaining:
        leader, rank = remaining[0], len(ranks) + 1
        group = [leader]
        for other in remaining[1:]:
            p = p_value(leader, other)
            if p is None or p >= alpha:
                group.append(other)
        ranks.update({agent: rank for agent in group})
        remaining = [a for a in remaining if a not in group]
    return ranks


def cell_p_value(
    scores: ItemScores, a: str, b: str, key: Key, draws: int = PERMUTATIONS, seed: int = DEFAULT_SEED
) -> tuple[float, str] | None:
    """The p-value (and the test's name) of A − B on the cell `key` alone, on the items both answered: McNemar's
    exact test for a cell of 0/1 items, else the cluster sign-flip permutation test (of the aggregate's weighted
    item differences when `key` is an aggregate), as `jurisflow compare` computes it. None when they share no
    scored item of it."""
    parts = flatten(key, scores.aggregates)
    index = scores.items.set_index(CELL).index
    mine = ItemScores(scores.items[np.asarray(index.isin(list(parts)))], scale=scores.scale)
    both = paired_items(mine, a, b)
    paired = both[both.score_a.notna() & both.score_b.notna()]
    if paired.empty:
        return None
    if key not in scores.aggregates:
        res = cell_difference(paired, draws, seed)
        return res.p_value, res.test
    row = _aggregate(paired, pd.Series(dtype=int), key, parts, draws, RANK_BOOT, seed)
    return None if row is None else (float(row["p"]), str(row["test"]))  # type: ignore[arg-type]

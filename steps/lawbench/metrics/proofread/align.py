"""ChERRANT's weighted character alignment with transpositions and all its cheapest paths (spec §6.3).

Every cost entry is produced by the same float additions, in the same order, as the official per-cell loop
(ties are detected with float equality and must not move). What is faster: the substitution costs of a
sentence pair come from one vectorised table, and transpositions are only searched where they could tie or
beat the other moves. A window of k+1 characters can only be an anagram if it holds the other side's
character (`k >= k_min`, precomputed per cell); the official loop stops at the first free diagonal step
(`k <= k_free`); and a transposition costs at least |i - j| + k, so it is skipped once that exceeds the best
of substitution and deletion. None of these cuts changes a cost or an operation list.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from steps.lawbench.metrics.proofread.lexicon import CharLexicon, substitution_costs

# Above this length difference ChERRANT follows only the first operation of each cell (one path).
FIRST_PATH_ONLY_LENGTH_GAP = 10
_NONE = -(10**9)

# One aligned operation: (op, source start, source end, target start, target end); op is M, S, I, D or T<k>.
Op = tuple[str, int, int, int, int]


@dataclass(frozen=True)
class CostMatrix:
    """Filled alignment table: costs, substitution costs and the transpositions found per cell."""

    source: str
    target: str
    cost: np.ndarray  # (n+1) x (m+1) float64
    substitution: np.ndarray  # n x m float64
    transpositions: dict[tuple[int, int], tuple[float, int]]  # cell -> (cost, span length k+1)

    @property
    def first_path_only(self) -> bool:
        return abs(len(self.source) - len(self.target)) > FIRST_PATH_ONLY_LENGTH_GAP

    def ops(self, i: int, j: int) -> list[Op]:
        """The operations reaching cell (i, j) at its cost, in ChERRANT's order T, S, I, D."""
        if i == 0:
            return [("I", 0, 0, j - 1, j)] if j else []
        if j == 0:
            return [("D", i - 1, i, 0, 0)]
        c = self.cost
        if self.source[i - 1] == self.target[j - 1]:
            return [("M", i - 1, i, j - 1, j)]
        best = c[i, j]
        found: list[Op] = []
        trans = self.transpositions.get((i, j))
        if trans is not None and trans[0] == best:
            span = trans[1]
            found.append((f"T{span}", i - span, i, j - span, j))
        if c[i - 1, j - 1] + self.substitution[i - 1, j - 1] == best:
            found.append(("S", i - 1, i, j - 1, j))
        if c[i, j - 1] + 1 == best:
            found.append(("I", i, i, j - 1, j))
        if c[i - 1, j] + 1 == best:
            found.append(("D", i - 1, i, j, j))
        return found


def _substitution_matrix(source: str, target: str, lexicon: CharLexicon) -> np.ndarray:
    source_chars, target_chars = sorted(set(source)), sorted(set(target))
    table = substitution_costs(source_chars, target_chars, lexicon)
    row = {ch: k for k, ch in enumerate(source_chars)}
    col = {ch: k for k, ch in enumerate(target_chars)}
    src = np.fromiter((row[ch] for ch in source), dtype=np.int64, count=len(source))
    tgt = np.fromiter((col[ch] for ch in target), dtype=np.int64, count=len(target))
    return table[src[:, None], tgt[None, :]]


def _min_window(source: str, target: str) -> np.ndarray:
    """k_min per cell: the smallest k whose windows s[i-k..i], t[j-k..j] hold t[j] and s[i] respectively."""
    src, tgt = np.array(list(source)), np.array(list(target))
    n, m = len(source), len(target)
    match = src[:, None] == tgt[None, :]
    rows, cols = np.arange(n)[:, None], np.arange(m)[None, :]
    # Last index < i in the source holding target[j], and last index < j in the target holding source[i].
    seen_in_source = np.maximum.accumulate(np.where(match, rows, _NONE), axis=0)
    seen_in_target = np.maximum.accumulate(np.where(match, cols, _NONE), axis=1)
    before_i = np.vstack([np.full((1, m), _NONE), seen_in_source[:-1]])
    before_j = np.hstack([np.full((n, 1), _NONE), seen_in_target[:, :-1]])
    return np.maximum(rows - before_i, cols - before_j)


def _transposition(source: str, target: str, cost: list[list[float]], i: int, j: int, k_lo: int, k_hi: int):
    """First k in [k_lo, k_hi] whose windows are anagrams -> (cost, k + 1), as the official loop finds it."""
    for k in range(k_lo, k_hi + 1):
        if sorted(source[i - k : i + 1]) == sorted(target[j - k : j + 1]):
            return cost[i - k][j - k] + k, k + 1
    return None


def fill_costs(source: str, target: str, lexicon: CharLexicon) -> CostMatrix:
    """The official cost table for aligning `source` to `target` (both whitespace-free).

    A plain row-major loop over precomputed per-cell lists; numpy per-row or per-anti-diagonal versions were
    measured and are not faster on sentences of ~80 characters (call overhead dominates). This is the readable
    reference; the scorer runs the same loop compiled (`align_kernel.fill_costs_compiled`).
    """
    n, m = len(source), len(target)
    sub_table = _substitution_matrix(source, target, lexicon) if n and m else np.zeros((n, m))
    sub = sub_table.tolist()
    k_min = _min_window(source, target).tolist() if n and m else [[0] * m for _ in range(n)]
    cost = [[float(j) for j in range(m + 1)]]
    last_free = [0] * (n + m + 1)  # per diagonal i - j + m: last row entered by a free diagonal step
    transpositions: dict[tuple[int, int], tuple[float, int]] = {}
    for i, char in enumerate(source):
        prev = cost[i]
        diag, x = prev[0], i + 1.0
        row = [x]
        for j, (tj, sub_ij, k, up) in enumerate(zip(target, sub[i], k_min[i], prev[1:], strict=True)):
            if tj == char:
                x = diag
            else:
                best = diag + sub_ij
                deletion = up + 1
                if deletion < best:
                    best = deletion
                # A transposition costs at least |i - j| + k; the window must fit and stop at a free step.
                if k <= j and i - j + k <= best and j - i + k <= best:
                    k_hi = min(i - last_free[i - j + m], j, int(best) - abs(i - j) + 1)
                    if k <= k_hi:
                        found = _transposition(source, target, cost, i, j, k, k_hi)
                        if found is not None:
                            transpositions[(i + 1, j + 1)] = found
                            if found[0] < best:
                                best = found[0]
                insertion = x + 1
                x = insertion if insertion < best else best
            row.append(x)
            if x == diag:
                last_free[i - j + m] = i + 1
            diag = up
        cost.append(row)
    return CostMatrix(source, target, np.array(cost, dtype=np.float64), sub_table, transpositions)

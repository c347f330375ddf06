"""A deliberately naive second implementation of the 2-1 alignment, used only to check the fast one.

Per-cell loop, full transposition search with sorted windows, and brute-force enumeration of every path.
"""

from __future__ import annotations

import math

from steps.lawbench.metrics.proofread.lexicon import CharLexicon, substitution_cost


def naive_alignment(source: str, target: str, lexicon: CharLexicon):
    """(cost rows, op-name rows) exactly as the spec's §6.3 describes the official loop."""
    n, m = len(source), len(target)
    cost = [[0.0] * (m + 1) for _ in range(n + 1)]
    ops: list[list[tuple[str, ...]]] = [[()] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        cost[i][0], ops[i][0] = cost[i - 1][0] + 1, ("D",)
    for j in range(1, m + 1):
        cost[0][j], ops[0][j] = cost[0][j - 1] + 1, ("I",)
    for i in range(n):
        for j in range(m):
            if source[i] == target[j]:
                cost[i + 1][j + 1], ops[i + 1][j + 1] = cost[i][j], ("M",)
                continue
            deletion = cost[i][j + 1] + 1
            insertion = cost[i + 1][j] + 1
            substitution = cost[i][j] + substitution_cost(source[i], target[j], lexicon)
            transposition, k = math.inf, 1
            while i - k >= 0 and j - k >= 0 and cost[i - k + 1][j - k + 1] != cost[i - k][j - k]:
                if sorted(source[i - k : i + 1]) == sorted(target[j - k : j + 1]):
                    transposition = cost[i - k][j - k] + k
                    break
                k += 1
            candidates = (transposition, substitution, insertion, deletion)
            best = min(candidates)
            cost[i + 1][j + 1] = best
            names = (f"T{k + 1}", "S", "I", "D")
            ops[i + 1][j + 1] = tuple(name for name, c in zip(names, candidates, strict=True) if c == best)
    return cost, ops


def naive_paths(ops, n: int, m: int, first_only: bool) -> list[list[tuple[str, int, int, int, int]]]:
    """Every cheapest path, forward, by plain recursion."""
    paths = []

    def walk(i: int, j: int, suffix: list) -> None:
        if i + j == 0:
            paths.append(suffix[::-1])
            return
        for op in ops[i][j][:1] if first_only else ops[i][j]:
            if op in ("M", "S"):
                walk(i - 1, j - 1, [*suffix, (op, i - 1, i, j - 1, j)])
            elif op == "D":
                walk(i - 1, j, [*suffix, (op, i - 1, i, j, j)])
            elif op == "I":
                walk(i, j - 1, [*suffix, (op, i, i, j - 1, j)])
            else:
                k = int(op[1:])
                walk(i - k, j - k, [*suffix, (op, i - k, i, j - k, j)])

    walk(n, m, [])
    return paths

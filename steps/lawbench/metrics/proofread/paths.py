"""Counting and enumerating the cheapest alignment paths of a filled cost table (spec §6.3, §6.6)."""

from __future__ import annotations

from collections.abc import Iterator

from steps.lawbench.metrics.proofread.align import CostMatrix, Op


def _predecessor(op: Op) -> tuple[int, int]:
    return op[1], op[3]


def followed_ops(table: CostMatrix) -> dict[tuple[int, int], list[Op]]:
    """Ops of every cell that the backward search from (n, m) visits (first op only if ChERRANT says so)."""
    start = (len(table.source), len(table.target))
    ops: dict[tuple[int, int], list[Op]] = {}
    stack = [start]
    while stack:
        cell = stack.pop()
        if cell in ops:
            continue
        cell_ops = table.ops(*cell)
        if table.first_path_only:
            cell_ops = cell_ops[:1]
        ops[cell] = cell_ops
        stack.extend(_predecessor(op) for op in cell_ops)
    return ops


def count_paths(ops: dict[tuple[int, int], list[Op]]) -> int:
    """Number of distinct paths from (n, m) back to (0, 0), by dynamic programming (no enumeration)."""
    counts: dict[tuple[int, int], int] = {}
    # Predecessors are lexicographically smaller cells, so sorted order is a topological order.
    for cell in sorted(ops):
        counts[cell] = 1 if cell == (0, 0) else sum(counts[_predecessor(op)] for op in ops[cell])
    return counts[max(ops)]


def enumerate_paths(ops: dict[tuple[int, int], list[Op]]) -> Iterator[list[Op]]:
    """Every path as a forward list of ops, depth-first in ChERRANT's op order."""
    start = max(ops)
    stack: list[tuple[tuple[int, int], list[Op]]] = [(start, [])]
    while stack:
        cell, suffix = stack.pop()
        if cell == (0, 0):
            yield suffix[::-1]
            continue
        for op in reversed(ops[cell]):
            stack.append((_predecessor(op), [*suffix, op]))


def _gap(start: tuple[int, int], end: tuple[int, int]) -> Op:
    """The single span ChERRANT makes of a maximal run of S/I/D ops between two cells.

    On a cheapest path a D is never next to an I (one substitution, cost < 2, is always cheaper), so a run
    is all D, all I, or contains an S and becomes one S span: its label follows from the end points.
    """
    (a, b), (c, d) = start, end
    label = "D" if b == d else "I" if a == c else "S"
    return (label, a, c, b, d)


def _landings(ops: dict[tuple[int, int], list[Op]], cell: tuple[int, int]) -> list[tuple[int, int]]:
    """Cells reachable backwards from `cell` by one or more S/I/D ops where such a run can start."""
    seen: set[tuple[int, int]] = set()
    stack = [cell]
    while stack:
        for op in ops[stack.pop()]:
            if op[0] in ("S", "I", "D"):
                prev = _predecessor(op)
                if prev not in seen:
                    seen.add(prev)
                    stack.append(prev)
    return sorted(c for c in seen if c == (0, 0) or any(op[0][0] in "MT" for op in ops[c]))


def grouped_paths(ops: dict[tuple[int, int], list[Op]]) -> Iterator[list[Op]]:
    """Step-1 edit lists (see `edits.group_path`) of all paths, without walking every path.

    A grouped path is fixed by its M and T ops alone, since each maximal S/I/D run between them collapses
    to one span whose label depends only on its end points; so enumerating the sequences of M/T ops (with
    an optional run before each) yields every distinct step-1 list, usually far fewer than the paths.
    """
    landings: dict[tuple[int, int], list[tuple[int, int]]] = {}
    stack: list[tuple[tuple[int, int], list[Op], bool]] = [(max(ops), [], True)]
    while stack:
        cell, suffix, may_gap = stack.pop()
        if cell == (0, 0):
            yield _join_matches(suffix[::-1])
            continue
        for op in ops[cell]:
            if op[0][0] in "MT":
                stack.append((_predecessor(op), [*suffix, op], True))
        if may_gap:
            if cell not in landings:
                landings[cell] = _landings(ops, cell)
            for start in landings[cell]:
                stack.append((start, [*suffix, _gap(start, cell)], False))


def _join_matches(units: list[Op]) -> list[Op]:
    out: list[Op] = []
    for unit in units:
        if unit[0] == "M" and out and out[-1][0] == "M":
            last = out[-1]
            out[-1] = ("M", last[1], unit[2], last[3], unit[4])
        else:
            out.append(unit)
    return out

"""The leaderboard of `jurisflow results`: the headline numbers of every benchmark (steps/sql/
results_leaderboard.sql) as one wide table, our agents first, then the papers' models for reference."""

from __future__ import annotations

import math

import pandas as pd

BENCHMARKS = ("lawbench", "j1", "mile", "ucl", "plawbench")
PAPER = "paper"


def _missing(value: object) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def cell(value: object, n: object = None, n_failed: object = None) -> str:
    """`98.5 (n 1,185)`, `71.2 (n 40, 3 failed)`, `62.2` (no n), or `—` (no number)."""
    text = "—" if _missing(value) else f"{float(value):.1f}"
    notes = [] if _missing(n) else [f"n {int(n):,}"]
    if not _missing(n_failed) and int(n_failed) > 0:
        notes.append(f"{int(n_failed)} failed")
    return f"{text} ({', '.join(notes)})" if notes else text


def row_label(agent: str, source: str) -> str:
    return f"{agent} (paper)" if source == PAPER else agent


def source_label(source: str, proxy: bool) -> str:
    return "ours, scripted" if source != PAPER and proxy else source


def leaderboard(long: pd.DataFrame, benchmarks: tuple[str, ...] = BENCHMARKS, paper: bool = True) -> pd.DataFrame:
    """One row per agent (ours) and per paper model, one column per headline number of `benchmarks`.

    `long` has the columns of results_leaderboard.sql. Our rows come first (by name); the paper's follow, grouped
    by the first benchmark they appear in and sorted by its number, best first. Cells are text (see `cell`)."""
    rows = long[long.benchmark.isin(benchmarks)]
    if not paper:
        rows = rows[rows.source != PAPER]
    columns = list(rows.sort_values("position").drop_duplicates("column")["column"])
    out: dict[tuple[str, str], dict[str, object]] = {}
    for r in rows.itertuples(index=False):
        key = (r.agent, r.source)
        entry = out.setdefault(key, {"agent": row_label(r.agent, r.source), "source": "", "_first": (99, 0.0)})
        entry[r.column] = cell(r.value, r.n, r.n_failed)
        proxy = bool(r.proxy) or entry["source"] == "ours, scripted"
        entry["source"] = source_label(r.source, proxy)
        first = (int(r.position), -float(r.value) if not _missing(r.value) else math.inf)
        entry["_first"] = min(entry["_first"], first)
    ours = sorted((k for k in out if k[1] != PAPER), key=lambda k: k[0].lower())
    papers = sorted((k for k in out if k[1] == PAPER), key=lambda k: (out[k]["_first"], k[0].lower()))
    table = pd.DataFrame([out[k] for k in ours + papers], columns=["agent", "source", *columns])
    return table.fillna("")

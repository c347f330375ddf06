"""The leaderboard of `jurisflow results`: the headline numbers of every benchmark (steps/sql/
results_leaderboard.sql, over the registrations' headlines) as one wide table, our agents first, then the papers'
models for reference. `jurisflow eval`'s summary reads the same rows (`labelled`, `cell`).

Our rows are labelled as every report labels them (`steps.reports.labels.twin_labels`): an agent whose numbers a
scripted stand-in touched in one benchmark and not in another has two rows, `echo` and `echo [scripted]`, so that
no number carries a label it does not have."""

from __future__ import annotations

import math
from typing import TypeGuard

import pandas as pd

from steps.reports.labels import twin_labels

PAPER = "paper"


def _present(value: float | None) -> TypeGuard[float]:
    """A number, not a missing cell (None, NaN or pd.NA)."""
    return not (value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)))


def cell(value: float | None, n: float | None = None, n_failed: float | None = None) -> str:
    """`98.5 (n 1,185)`, `71.2 (n 40, 3 failed)`, `62.2` (no n), or `—` (no number)."""
    text = f"{float(value):.1f}" if _present(value) else "—"
    notes = [f"n {int(n):,}"] if _present(n) else []
    if _present(n_failed) and int(n_failed) > 0:
        notes.append(f"{int(n_failed)} failed")
    return f"{text} ({', '.join(notes)})" if notes else text


def row_label(agent: str, source: str) -> str:
    """A paper model's row label: `<model> (paper)`."""
    return f"{agent} (paper)" if source == PAPER else agent


def labelled(headlines: pd.DataFrame, twins: pd.DataFrame) -> pd.DataFrame:
    """The headline rows (results_leaderboard.sql) with each row's `label`: ours as every report labels the agent
    in that benchmark's table (`twin_labels` over `twins`, the twins' rows: benchmark, table, agent, proxy, limit,
    source), the paper's `<model> (paper)`."""
    labels = {
        (bench, *key): text for bench, rows in twins.groupby("benchmark") for key, text in twin_labels(rows).items()
    }
    keys = zip(headlines.benchmark, headlines["table"], headlines.agent, headlines.source, strict=True)
    return headlines.assign(
        label=[row_label(a, s) if s == PAPER else labels.get((b, t, str(a)), str(a)) for b, t, a, s in keys]
    )


def leaderboard(long: pd.DataFrame, benchmarks: tuple[str, ...] | None = None, paper: bool = True) -> pd.DataFrame:
    """One row per label of ours (an agent, or one per label it has: `echo`, `echo [scripted]`) and per paper model,
    one column per headline number of `benchmarks` (None: all).

    `long` has the columns of results_leaderboard.sql and `label` (`labelled`). Our rows come first (by name, then
    label); the paper's follow, grouped by the first benchmark they appear in and sorted by its number, best first.
    Cells are text (see `cell`)."""
    rows = long if benchmarks is None else long[long.benchmark.isin(benchmarks)]
    if not paper:
        rows = rows[rows.source != PAPER]
    columns = list(rows.sort_values("position").drop_duplicates("column")["column"])
    out: dict[tuple[str, str, str], dict[str, str]] = {}  # the text cells of each row
    firsts: dict[tuple[str, str, str], tuple[int, float]] = {}  # each row's sort key: first position, best number
    for r in rows.itertuples(index=False):
        key = (str(r.agent), str(r.label), str(r.source))
        entry = out.setdefault(key, {"agent": str(r.label), "source": str(r.source)})
        entry[r.column] = cell(r.value, r.n, r.n_failed)
        first = (int(r.position), -float(r.value) if _present(r.value) else math.inf)
        firsts[key] = min(firsts.get(key, (99, 0.0)), first)
    ours = sorted((k for k in out if k[2] != PAPER), key=lambda k: (k[0].lower(), k[1]))
    papers = sorted((k for k in out if k[2] == PAPER), key=lambda k: (firsts[k], k[0].lower()))
    table = pd.DataFrame([out[k] for k in ours + papers], columns=["agent", "source", *columns])
    return table.fillna("")

"""The leaderboard of `jurisflow results`: the headline numbers of every benchmark (steps/sql/
results_leaderboard.sql, over the registrations' headlines) as one wide table, our agents first, then the papers'
models for reference. `jurisflow eval`'s summary reads the same rows (`labelled`, `cell`).

Our rows are labelled as every report labels them (`steps.reports.labels.twin_labels`): an agent whose numbers a
scripted stand-in touched in one benchmark and not in another has two rows, `echo` and `echo [scripted]`, so that
no number carries a label it does not have. The protocol label (`[paper protocol]` or the deviations) differs
per benchmark, so the leaderboard leaves it out of its rows and names it under the table (`protocol_lines`);
`jurisflow eval`'s summary puts it beside each number."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

import pandas as pd

from steps.reports.labels import twin_labels, twin_protocols

if TYPE_CHECKING:
    from steps.paths import Paths
    from steps.stats.cells import ItemScores

PAPER = "paper"


def _present(value: float | None) -> TypeGuard[float]:
    """A number, not a missing cell (None, NaN or pd.NA)."""
    return not (value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)))


def cell(
    value: float | None,
    n: float | None = None,
    n_failed: float | None = None,
    low: float | None = None,
    high: float | None = None,
) -> str:
    """`98.5 (n 1,185)`, `71.2 ± 3.1 (n 40, 3 failed)` (± half the 95 % interval, where the twin has one),
    `62.2` (no n), or `—` (no number)."""
    text = f"{float(value):.1f}" if _present(value) else "—"
    if _present(value) and _present(low) and _present(high):
        text += f" ± {(float(high) - float(low)) / 2:.1f}"
    notes = [f"n {int(n):,}"] if _present(n) else []
    if _present(n_failed) and int(n_failed) > 0:
        notes.append(f"{int(n_failed)} failed")
    return f"{text} ({', '.join(notes)})" if notes else text


def row_label(agent: str, source: str) -> str:
    """A paper model's row label: `<model> (paper)`."""
    return f"{agent} (paper)" if source == PAPER else agent


def labelled(headlines: pd.DataFrame, twins: pd.DataFrame) -> pd.DataFrame:
    """The headline rows (results_leaderboard.sql) with each row's `label` and `protocol`: ours as every report
    labels the agent in that benchmark's table (`twin_labels` over `twins`, the twins' rows: benchmark, table,
    agent, proxy, limit, [protocol,] source; the protocol apart), the paper's `<model> (paper)` and no protocol."""
    labels = {
        (bench, *key): text
        for bench, rows in twins.groupby("benchmark")
        for key, text in twin_labels(rows, protocol=False).items()
    }
    protocols = {
        (bench, agent): text
        for bench, rows in twins.groupby("benchmark")
        for agent, text in twin_protocols(rows).items()
    }
    keys = list(zip(headlines.benchmark, headlines["table"], headlines.agent, headlines.source, strict=True))
    return headlines.assign(
        label=[row_label(a, s) if s == PAPER else labels.get((b, t, str(a)), str(a)) for b, t, a, s in keys],
        protocol=[None if s == PAPER else protocols.get((b, str(a))) for b, _, a, s in keys],
    )


def protocol_lines(long: pd.DataFrame, benchmarks: tuple[str, ...] | None = None) -> list[str]:
    """Under the leaderboard: per benchmark, each of our agents' protocol label (`j1 · oracle: <label>`), the
    agents sharing one label named together; `long` as `leaderboard` takes it."""
    rows = long if benchmarks is None else long[long.benchmark.isin(benchmarks)]
    rows = rows[rows.source != PAPER]
    out = []
    for bench, group in rows.groupby("benchmark", sort=False):
        by_label: dict[str, list[str]] = {}
        for agent, text in group.drop_duplicates("agent")[["agent", "protocol"]].itertuples(index=False):
            label = text if isinstance(text, str) and text else "protocol not recorded (a twin written before it)"
            by_label.setdefault(label, []).append(str(agent))
        out += [f"{bench} · {', '.join(agents)}: {label}" for label, agents in by_label.items()]
    return out


def leaderboard(
    long: pd.DataFrame,
    benchmarks: tuple[str, ...] | None = None,
    paper: bool = True,
    ranks: Mapping[tuple[str, str, str], int] | None = None,
) -> pd.DataFrame:
    """One row per label of ours (an agent, or one per label it has: `echo`, `echo [scripted]`) and per paper model,
    one column per headline number of `benchmarks` (None: all).

    `long` has the columns of results_leaderboard.sql and `label` (`labelled`). Our rows come first (by name, then
    label); the paper's follow, grouped by the first benchmark they appear in and sorted by its number, best first.
    Cells are text (see `cell`); with `ranks` ((benchmark, column, agent) → rank, `headline_ranks`) our cells start
    with their rank, `#1 71.2 ± 3.1 (n 500)`."""
    rows = long if benchmarks is None else long[long.benchmark.isin(benchmarks)]
    if not paper:
        rows = rows[rows.source != PAPER]
    columns = list(rows.sort_values("position").drop_duplicates("column")["column"])
    out: dict[tuple[str, str, str], dict[str, str]] = {}  # the text cells of each row
    firsts: dict[tuple[str, str, str], tuple[int, float]] = {}  # each row's sort key: first position, best number
    for r in rows.itertuples(index=False):
        key = (str(r.agent), str(r.label), str(r.source))
        entry = out.setdefault(key, {"agent": str(r.label), "source": str(r.source)})
        entry[r.column] = cell(r.value, r.n, r.n_failed, getattr(r, "ci_low", None), getattr(r, "ci_high", None))
        rank = (ranks or {}).get((str(r.benchmark), str(r.column), str(r.agent))) if r.source != PAPER else None
        if rank is not None:
            entry[r.column] = f"#{rank} {entry[r.column]}"
        first = (int(r.position), -float(r.value) if _present(r.value) else math.inf)
        firsts[key] = min(firsts.get(key, (99, 0.0)), first)
    ours = sorted((k for k in out if k[2] != PAPER), key=lambda k: (k[0].lower(), k[1]))
    papers = sorted((k for k in out if k[2] == PAPER), key=lambda k: (firsts[k], k[0].lower()))
    table = pd.DataFrame([out[k] for k in ours + papers], columns=["agent", "source", *columns])
    return table.fillna("")


def _literal(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def headline_rows(reports: Path) -> pd.DataFrame:
    """The headline numbers of every benchmark whose CSV twin exists under `reports`, ours and the papers', each
    row with its `label` (steps.results.labelled). `jurisflow results` and `jurisflow eval` both read these."""
    import duckdb

    from steps.benchmarks import names, register_headlines
    from steps.sql import run_query

    twins = [reports / f"{b}.csv" for b in names() if (reports / f"{b}.csv").is_file()]
    if not twins:
        raise FileNotFoundError(f"no benchmark CSV under {reports}/ ({', '.join(names())}); run `dvc repro` first")
    con = duckdb.connect()
    # nullstr '' only: the null agent is called `null`
    con.execute(
        f"CREATE VIEW raw AS SELECT * FROM read_csv([{', '.join(map(_literal, twins))}], header = true, "
        "union_by_name = true, nullstr = '')"
    )
    columns = {str(row[0]) for row in con.execute("DESCRIBE raw").fetchall()}
    # intervals (steps/stats/cells.py): numbers where a twin has them, NULL in twins without the columns
    intervals = ", ".join(
        f'TRY_CAST("{c}" AS DOUBLE) AS {c}' if c in columns else f"NULL::DOUBLE AS {c}" for c in ("ci_low", "ci_high")
    )
    kept = "EXCLUDE (ci_low, ci_high)" if {"ci_low", "ci_high"} <= columns else ""
    con.execute(f"CREATE VIEW withci AS SELECT * {kept}, {intervals} FROM raw")
    if "limit" in columns:  # every value a count (a column empty in every twin reads as text)
        con.execute('CREATE VIEW twins AS SELECT * REPLACE (TRY_CAST("limit" AS BIGINT) AS "limit") FROM withci')
    else:  # twins written before the column: no run was limited as far as they say
        con.execute('CREATE VIEW twins AS SELECT *, NULL::BIGINT AS "limit" FROM withci')
    register_headlines(con)
    protocol = '"protocol"' if "protocol" in columns else 'NULL::VARCHAR AS "protocol"'
    ours = con.execute(
        f'SELECT benchmark, "table", agent, proxy, "limit", {protocol}, source FROM twins WHERE source = \'ours\''
    ).df()
    return labelled(run_query(con, "results_leaderboard"), ours)


RANKS_NOTE = (
    "#k: the agent's rank on that headline. The leader (best number) is #1, and every agent whose paired difference "
    "with it on the items both answered is not significant (McNemar's exact test for 0/1 items, else the cluster "
    "sign-flip permutation test; unadjusted p >= 0.05, one test per agent) shares #1; the rest are ranked the same "
    "way (docs/statistics.md). Agents without item scores are not ranked."
)


def headline_ranks(
    rows: pd.DataFrame, paths: Paths, benchmarks: tuple[str, ...] | None = None
) -> dict[tuple[str, str, str], int]:
    """(benchmark, column, agent) → rank of our agents on each headline column (`rows`: `headline_rows`), by tie
    groups (steps/stats/ranks.py) from each benchmark's registered item scores read per agent (an agent whose
    item scores cannot be read is not ranked)."""
    from steps.benchmarks import benchmarks as registered
    from steps.benchmarks import headline_table
    from steps.registry import resolve
    from steps.stats.cells import read_each
    from steps.stats.ranks import cell_p_value, tie_groups

    heads = {(b, c): (t, s, m) for b, c, t, s, m in headline_table()[["benchmark", "column", "table", "scope",
                                                                      "metric"]].itertuples(index=False)}  # fmt: skip
    ours = rows[(rows.source != PAPER) & rows.value.notna()]
    if benchmarks is not None:
        ours = ours[ours.benchmark.isin(benchmarks)]
    out: dict[tuple[str, str, str], int] = {}
    for bench, part in ours.groupby("benchmark", sort=True):
        reg = registered().get(str(bench))
        if reg is None or reg.item_scores is None:
            continue
        found = read_each(functools.partial(resolve(reg.item_scores), paths), sorted(set(part.agent.astype(str))))
        if found is None:
            continue
        scores = found
        have = set(scores.items.agent.astype(str))
        for column, col_rows in part.groupby("column", sort=True):
            key = heads[(str(bench), str(column))]
            values = {str(a): float(v) for a, v in zip(col_rows.agent, col_rows.value, strict=True) if str(a) in have}

            def p_value(a: str, b: str, key: tuple[str, str, str] = key, scores: ItemScores = scores) -> float | None:
                found = cell_p_value(scores, a, b, key)
                return None if found is None else found[0]

            for agent, rank in tie_groups(values, p_value).items():
                out[(str(bench), str(column), agent)] = rank
    return out

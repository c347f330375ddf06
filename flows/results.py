"""`jurisflow results`: a leaderboard across agents and benchmarks, read from the reports' CSV twins with DuckDB.

Read-only and quick: no Prefect, no model; it reads what the last `dvc repro` (or the committed reports) wrote.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from steps.benchmarks import names
from steps.paths import Paths
from steps.results import leaderboard

REPORTS = Path("reports")
FORMATS = ("table", "md", "csv")


def headline_rows(reports: Path = REPORTS) -> pd.DataFrame:
    """The headline numbers of every benchmark whose CSV twin exists under `reports` (steps.results.headline_rows);
    `jurisflow results` and `jurisflow eval` both read these."""
    from steps.results import headline_rows as rows

    return rows(reports)


def parse_benchmarks(text: str | None) -> tuple[str, ...]:
    """`lawbench,ucl` → ('lawbench', 'ucl'); every benchmark when empty; an unknown name is a ValueError."""
    if not text:
        return names()
    wanted = tuple(b.strip().lower() for b in text.split(",") if b.strip())
    unknown = [b for b in wanted if b not in names()]
    if unknown:
        raise ValueError(f"unknown benchmark {', '.join(unknown)}; known: {', '.join(names())}")
    return wanted


def results(
    benchmark: str | None = None,
    fmt: str = "table",
    paper: bool = True,
    reports: Path = REPORTS,
    ranks: bool = False,
    paths: Paths | None = None,
) -> str:
    """Print the leaderboard (`fmt`: a rich table, Markdown or CSV) and return a one-line summary. `ranks`: our
    cells start with their tie-group rank (steps.results.headline_ranks, from the runs' item scores under
    `paths`)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format '{fmt}'; use one of {', '.join(FORMATS)}")
    chosen = parse_benchmarks(benchmark)
    rows = headline_rows(reports)
    ranked = None
    if ranks:
        from flows.kit.paths import PATHS
        from steps.results import headline_ranks

        ranked = headline_ranks(rows, paths or PATHS, chosen)
    table = leaderboard(rows, chosen, paper=paper, ranks=ranked)
    if table.empty:
        raise ValueError(f"no result rows for {benchmark or 'any benchmark'} under {reports}/")
    if fmt == "csv":
        print(table.to_csv(index=False), end="")
    elif fmt == "md":
        from steps.reports.markdown import markdown_table

        print(markdown_table(table, null=""))
    else:
        _print_rich(table)
    from steps.results import protocol_lines

    notes = protocol_lines(rows, chosen)
    if notes and fmt != "csv":
        print("protocol (paper protocol, or how each run differs from the paper's):")
        print("\n".join(f"  {line}" for line in notes))
    if ranked is not None and fmt != "csv":
        from steps.results import RANKS_NOTE

        print(f"ranks: {RANKS_NOTE}")
    briefs = page_briefs(chosen, reports)
    if briefs and fmt != "csv":
        print("data (how a benchmark's data differs from the paper's):")
        print("\n".join(f"  {b}: {line}" for b, line in briefs.items()))
    ours = rows[rows.benchmark.isin(chosen) & (rows.source != "paper")].agent.nunique()
    papers, numbers = (table.source == "paper").sum(), len(table.columns) - 2
    return f"{ours} agents of ours, {papers} paper models, {numbers} headline number{'s' * (numbers != 1)}"


def page_briefs(chosen: tuple[str, ...], reports: Path = REPORTS) -> dict[str, str]:
    """Benchmark -> the short form of what its report says about its data (its registration's `page.brief`, from
    its Markdown twin: J1's instance provenance), for the benchmarks that have one and a report on disk."""
    from steps.benchmarks import benchmark
    from steps.registry import resolve

    out: dict[str, str] = {}
    for name in chosen:
        page = benchmark(name).page
        twin = reports / (page.markdown or f"{name}.md")
        if page.brief and twin.is_file() and (line := resolve(page.brief)(twin.read_text(encoding="utf-8"))):
            out[name] = line
    return out


def _print_rich(table: pd.DataFrame) -> None:
    from rich.markup import escape

    from flows.terminal import console
    from flows.terminal import table as fitting_table

    out = fitting_table(*map(escape, table.columns), title="jurisflow results (paper rows for reference)")
    for row in table.itertuples(index=False):
        style = "dim" if row.source == "paper" else None
        out.add_row(*(escape(str(v)) for v in row), style=style)
    console().print(out)
    console().print(f"[dim]{escape(LEGEND)}[/]")


LEGEND = (
    "cells: headline number on 0-100 (n = the items, dialogues or verdicts it averages; failed = left out by failed "
    "model calls). [scripted]: a scripted stand-in (the agent, or the environment, judge or reference model those "
    "numbers use) touched them: a check of the pipeline, not a measurement. [limit N]: a run on the first N items. "
    "The protocol of each benchmark's numbers (paper protocol, or how the run differs from the paper's) is listed "
    "under the table."
)

"""Stage `data_report`: the data card `reports/data.md` from the interim tables (DuckDB SQL), with the model usage
of every stage and the dialogues and judged rows of every benchmark's runs.

dvc.yaml → this flow → each interim table's summary query (its benchmark's sql/data_<table>.sql, or one its benchmark's
sources.py names; data_dialogues and data_judged span the benchmarks) → steps.reports.data_card. The tables and
their titles are the benchmarks' own (steps/<benchmark>/sources.py), the judged tables their registrations'
(steps/<benchmark>/benchmark.py).
"""

from __future__ import annotations

from pathlib import Path

import duckdb
from prefect import task
from prefect.cache_policies import NO_CACHE

from flows.kit.config import MANIFEST_FILE
from flows.kit.monitor import publish_report
from flows.kit.paths import PATHS, Paths
from flows.kit.stage import main, stage_flow
from steps.benchmarks import benchmarks, judged_tables
from steps.registry import SourceTable
from steps.reports.data_card import RunsSection, TableSection, render_data_card
from steps.schemas.judged import Judged
from steps.sources import load_manifest
from steps.sources.tables import source_tables
from steps.sql import register_labelled_union, register_parquet, register_parquet_union, run_query
from steps.tables import write_text_atomic

# Every stage that calls models writes its accounting rows beside its outputs (flows/kit/paths.py).
USAGE_GLOB = "**/*usage.parquet"  # usage.parquet, judge_usage.parquet, extract_usage.parquet …
# Every dialogue run (the UCL reference's included) writes turns and dialogues in one schema (steps/schemas/runs.py).
RUN_GLOB = "**/{table}.parquet"


def card_tables() -> list[SourceTable]:
    """The interim tables in the data card's order: each benchmark's in its declared order, the benchmarks in
    order (`position`), the corpora (J1's judgments) after every benchmark's own data."""
    declared = source_tables()
    owners = [*(b for b in benchmarks() if b in declared), *(b for b in declared if b not in benchmarks())]
    tables = [t for b in owners for t in declared[b]]
    return [t for t in tables if not t.corpus] + [t for t in tables if t.corpus]


def judged_files(paths: Paths) -> list[tuple[dict[str, str], Path]]:
    """Every judged table of every run, labelled with its benchmark and table."""
    return [
        ({"benchmark": bench, "table": table}, path)
        for bench, tables in judged_tables().items()
        for table in tables
        for path in sorted(paths.runs(bench).glob(f"*/{table}.parquet"))
    ]


def _count(con: duckdb.DuckDBPyConnection, table: str) -> int:
    (rows,) = con.execute(f"SELECT count(*) FROM {table}").fetchall()[0]
    return rows


@task(cache_policy=NO_CACHE)
def summarise(
    tables: list[tuple[SourceTable, Path]], usage_files: list[Path]
) -> tuple[list[TableSection], TableSection | None]:
    with duckdb.connect() as con:
        register_parquet(con, {t.name: path for t, path in tables})
        sections = []
        for t, _ in tables:
            rows = _count(con, t.name)
            if t.summary is None:
                raise ValueError(f"interim table {t.name}: its SourceTable names no summary query")
            sections.append(TableSection(t.name, t.title, rows, run_query(con, t.summary)))
        usage = None
        if usage_files:
            register_parquet_union(con, "model_usage", usage_files)
            rows = _count(con, "model_usage")
            usage = TableSection("model_usage", "Model usage", rows, run_query(con, "data_model_usage"))
    return sections, usage


@task(cache_policy=NO_CACHE)
def summarise_runs(paths: Paths) -> RunsSection:
    """Dialogues and judged rows per benchmark, each one query over every benchmark's tables."""
    dialogues, turns = (sorted(paths.data.glob(RUN_GLOB.format(table=t))) for t in ("dialogues", "turns"))
    judged = judged_files(paths)
    with duckdb.connect() as con:
        per_dialogue = per_judged = None
        if dialogues and turns:
            register_parquet_union(con, "dialogues", dialogues)
            register_parquet_union(con, "turns", turns)
            per_dialogue = run_query(con, "data_dialogues")
        if judged:
            register_labelled_union(con, "judged", judged, list(Judged.to_schema().columns))
            per_judged = run_query(con, "data_judged")
    return RunsSection(per_dialogue, per_judged)


@stage_flow
def data_report(paths: Paths = PATHS) -> str:
    """Write the data card for every interim table."""
    tables = [(t, paths.interim / f"{t.name}.parquet") for t in card_tables()]
    missing = [str(p) for _, p in tables if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"{missing[0]}: interim table missing; run `dvc repro ingest` first")
    usage_files = sorted(paths.data.glob(USAGE_GLOB))
    out = paths.reports / "data.md"
    sections, usage = summarise(tables, usage_files)
    text = render_data_card(load_manifest(MANIFEST_FILE), sections, usage, summarise_runs(paths))
    write_text_atomic(out, text)
    publish_report(out, "The data card: pinned sources, row counts, model usage")
    return f"{out} written ({len(sections)} tables, {sum(s.rows for s in sections):,} rows described); 0 failed"


if __name__ == "__main__":
    main(data_report)

"""Stage `data_report`: the data card `reports/data.md` from the interim tables (DuckDB SQL), with the model usage
of every stage and the dialogues and judged rows of every benchmark's runs.

dvc.yaml → this flow → steps/sql/data_<table>.sql (one query per table; data_dialogues and data_judged span the
benchmarks) → steps.reports.data_card.
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
from flows.kit.tables import write_text_atomic
from steps.reports.data_card import RunsSection, TableSection, render_data_card
from steps.schemas.judged import Judged
from steps.sources import load_manifest
from steps.sql import register_labelled_union, register_parquet, register_parquet_union, run_query

# Every stage that calls models writes its accounting rows beside its outputs (flows/kit/paths.py).
USAGE_GLOB = "**/*usage.parquet"  # usage.parquet, judge_usage.parquet, extract_usage.parquet …
# Every dialogue run (the UCL reference's included) writes turns and dialogues in one schema (steps/schemas/runs.py).
RUN_GLOB = "**/{table}.parquet"
# The judged tables of each benchmark's runs (steps/schemas/judged.py is their common base).
JUDGED = {"j1": ("scores",), "mile": ("scores",), "ucl": ("verdicts", "hint_scores"), "plawbench": ("judgements",)}

TITLES = {
    "lawbench_items": "LawBench task items",
    "lawbench_predictions": "LawBench published predictions",
    "lawbench_published": "LawBench published scores",
    "lawbench_cilin": "LawBench 2-1 lexicon: Cilin semantic classes",
    "lawbench_confusions": "LawBench 2-1 lexicon: confusion set",
    "mile": "MILE instances",
    "ucl": "UCL-Bench public items",
    "plawbench_case_analysis": "PLawBench case analysis",
    "plawbench_consultation": "PLawBench consultation",
    "plawbench_drafting": "PLawBench document drafting",
    "judgments_criminal": "JuDGE criminal judgments",
    "judgments_civil": "C3RD mini civil cases",
}


def judged_files(paths: Paths) -> list[tuple[dict[str, str], Path]]:
    """Every judged table of every run, labelled with its benchmark and table."""
    return [
        ({"benchmark": bench, "table": table}, path)
        for bench, tables in JUDGED.items()
        for table in tables
        for path in sorted(paths.runs(bench).glob(f"*/{table}.parquet"))
    ]


def _count(con: duckdb.DuckDBPyConnection, table: str) -> int:
    (rows,) = con.execute(f"SELECT count(*) FROM {table}").fetchall()[0]
    return rows


@task(cache_policy=NO_CACHE)
def summarise(tables: dict[str, Path], usage_files: list[Path]) -> tuple[list[TableSection], TableSection | None]:
    with duckdb.connect() as con:
        register_parquet(con, tables)
        sections = []
        for name in TITLES:
            rows = _count(con, name)
            sections.append(TableSection(name, TITLES[name], rows, run_query(con, f"data_{name}")))
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
    tables = {name: paths.interim / f"{name}.parquet" for name in TITLES}
    missing = [str(p) for p in tables.values() if not p.is_file()]
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

"""Stage `plawbench_rubrics`: the public PLawBench tasks and their rubrics as data, and the parse report.

dvc.yaml → this flow → steps.plawbench.rubrics (case_rubric, consultation_rubric, drafting_rubric) →
data/plawbench/{tasks,rubric_items,parse_issues}.parquet and reports/plawbench_rubrics.md.
"""

from __future__ import annotations

import duckdb
import pandas as pd
from prefect import task
from prefect.cache_policies import NO_CACHE

from flows.kit.monitor import publish_report
from flows.kit.paths import PATHS, Paths
from flows.kit.stage import main, stage_flow
from steps.plawbench.report import render_rubrics
from steps.plawbench.rubrics import RubricTables, build_rubrics
from steps.plawbench.schemas import PlawParseIssues, PlawRubricItems, PlawTasks
from steps.plawbench.sources import PlawCaseAnalysis, PlawConsultation, PlawDrafting
from steps.plawbench.sql import QUERIES
from steps.tables import read_table, write_table, write_text_atomic


@task(cache_policy=NO_CACHE)
def parse(case_analysis: pd.DataFrame, consultation: pd.DataFrame, drafting: pd.DataFrame) -> RubricTables:
    return build_rubrics(case_analysis, consultation, drafting)


@task(cache_policy=NO_CACHE)
def summarise(tables: RubricTables) -> dict[str, pd.DataFrame]:

    with duckdb.connect() as con:
        con.register("tasks", tables.tasks)
        con.register("rubric_items", tables.items)
        con.register("parse_issues", tables.issues)
        return {name: QUERIES.run(con, f"plawbench_{name}") for name in ("data", "kinds", "issue_counts")}


@stage_flow
def plawbench_rubrics(paths: Paths = PATHS) -> str:
    """The public tasks and their rubrics as tables, and the parse report."""
    out_dir, report = paths.shared("plawbench"), paths.reports / "plawbench_rubrics.md"
    tables = parse(
        read_table(paths.interim / "plawbench_case_analysis.parquet", PlawCaseAnalysis),
        read_table(paths.interim / "plawbench_consultation.parquet", PlawConsultation),
        read_table(paths.interim / "plawbench_drafting.parquet", PlawDrafting),
    )
    write_table(tables.tasks, out_dir / "tasks.parquet", PlawTasks, table="plawbench_tasks")
    write_table(tables.items, out_dir / "rubric_items.parquet", PlawRubricItems, table="plawbench_rubric_items")
    write_table(tables.issues, out_dir / "parse_issues.parquet", PlawParseIssues, table="plawbench_parse_issues")
    summary = summarise(tables)
    write_text_atomic(report, render_rubrics(tables, summary))
    publish_report(report, "PLawBench rubric parse report")
    units = int((tables.items.judged & (tables.items.kind == "award")).sum())
    return (
        f"{len(tables.tasks)} tasks, {len(tables.items):,} rubric rows ({units:,} judged items), "
        f"{len(tables.issues)} parse issues in {tables.issues.item_id.nunique()} tasks → {out_dir}, {report}"
    )


if __name__ == "__main__":
    main(plawbench_rubrics)

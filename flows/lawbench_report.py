"""Stage `lawbench_report`: the paper-style LawBench tables and their long-format CSV twin.

dvc.yaml → this flow → steps/lawbench/sql/lawbench_long.sql and lawbench_deltas.sql (DuckDB) → steps.lawbench.report.
Reads the rescored published predictions, LawBench's results.csv, and every configured agent's scores.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd
from prefect import task
from prefect.cache_policies import NO_CACHE

from flows.kit.config import MANIFEST_FILE, PARAMS_FILE, load_params
from flows.kit.monitor import publish_report
from flows.kit.paths import PATHS, Paths
from flows.kit.stage import main, stage_flow
from steps.lawbench.benchmark import BENCHMARK
from steps.lawbench.metrics.tasks import SETTINGS
from steps.lawbench.report import csv_text, render_setting, tasks_frame
from steps.lawbench.schemas import LawBenchScores
from steps.lawbench.sources import LawBenchPublished
from steps.lawbench.sql import QUERIES
from steps.reports.dvc_views import write_dvc_views
from steps.reports.runs import agent_info, truncated_replies
from steps.sources import load_manifest
from steps.tables import read_table, write_text_atomic


@task(cache_policy=NO_CACHE)
def build_tables(scores: pd.DataFrame, published: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    from steps.reports.long import long_query

    with duckdb.connect() as con:
        con.register("scores", scores)
        con.register("published", published)
        con.register("lawbench_tasks", tasks_frame())
        long = long_query(con, QUERIES.path("lawbench_long"))
        con.register("lawbench_long", long)
        deltas = QUERIES.run(con, "lawbench_deltas")
    return long, deltas


@stage_flow
def lawbench_report(params_file: Path = PARAMS_FILE, paths: Paths = PATHS) -> str:
    """The paper-style LawBench tables of every agent taking part, beside the published scores rescored."""
    params = load_params(params_file).for_benchmark("lawbench")  # the agents that take part in it
    reports = paths.reports
    frames = [read_table(paths.shared("lawbench") / "published_scores.parquet", LawBenchScores)]
    published = read_table(paths.interim / "lawbench_published.parquet", LawBenchPublished)
    names = {m: () for m in sorted(set(published.model))}  # the paper's models: those of its results.csv
    agents = {}
    for name in params.agents:
        # a setting not run yet for this agent (e.g. `dvc repro lawbench_predict@<agent>-zero_shot` alone) is
        # left out of that setting's table and named in its notes
        ran = [paths.run("lawbench", name, s) for s in SETTINGS]
        ran = [d for d in ran if (d / "scores.parquet").is_file()]
        frames += [read_table(d / "scores.parquet", LawBenchScores) for d in ran]
        agents[name] = agent_info(params, name, "lawbench", ran, names=names, by_name=False, required=False)
    scores = pd.concat(frames, ignore_index=True)
    long, deltas = build_tables(scores, published)
    commit = next(f.commit for f in load_manifest(MANIFEST_FILE).files if f.dataset == "lawbench_items")
    for setting in SETTINGS:
        cut = {name: truncated_replies([paths.run("lawbench", name, setting)]) for name in agents}
        text = render_setting(long, deltas, setting, agents, commit, list(names), cut)
        write_text_atomic(reports / f"lawbench_{setting}.md", text)
    write_text_atomic(reports / "lawbench.csv", csv_text(long))
    for setting in SETTINGS:
        publish_report(reports / f"lawbench_{setting}.md", f"LawBench {setting}: ours beside the published scores")
    write_dvc_views(BENCHMARK, reports / "lawbench.csv", list(params.agents), reports)
    worst = deltas.max_abs_diff.max() if len(deltas) else float("nan")
    return (
        f"reports/lawbench_zero_shot.md, reports/lawbench_one_shot.md and reports/lawbench.csv written "
        f"({len(long):,} long rows; {len(agents)} agents; largest |ours − published| {worst:.2g})"
    )


if __name__ == "__main__":
    main(lawbench_report)

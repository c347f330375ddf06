"""Stage `lawbench_report`: the paper-style LawBench tables and their long-format CSV twin.

dvc.yaml → this flow → steps/sql/lawbench_long.sql and lawbench_deltas.sql (DuckDB) → steps.lawbench.report.
Reads the rescored published predictions, LawBench's results.csv, and every configured agent's scores.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd
from prefect import flow, task
from prefect.cache_policies import NO_CACHE

from flows.config import MANIFEST_FILE, PARAMS_FILE, load_params
from flows.dvc_views import write_dvc_views
from flows.ingest import INTERIM_DIR
from flows.lawbench_predict import OUT_DIR as AGENT_DIR
from flows.lawbench_score import OUT as PUBLISHED_SCORES
from flows.paths import safe_child
from flows.stage import main
from flows.tables import read_table, write_text_atomic
from steps.lawbench.report import AgentInfo, csv_text, render_setting, tasks_frame
from steps.metrics.lawbench.tasks import SETTINGS
from steps.schemas import LawBenchPublished, LawBenchScores
from steps.sources import load_manifest

REPORTS = Path("reports")


@task(cache_policy=NO_CACHE)
def build_tables(scores: pd.DataFrame, published: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    from steps.sql import run_query

    with duckdb.connect() as con:
        con.register("scores", scores)
        con.register("published", published)
        con.register("lawbench_tasks", tasks_frame())
        long = run_query(con, "lawbench_long")
        con.register("lawbench_long", long)
        deltas = run_query(con, "lawbench_deltas")
    return long, deltas


@flow(name="lawbench_report")
def lawbench_report(params_file: Path = PARAMS_FILE, reports: Path = REPORTS) -> str:
    params = load_params(params_file)
    frames = [read_table(PUBLISHED_SCORES, LawBenchScores)]
    agents: dict[str, AgentInfo] = {}
    for name in params.agents:
        model = params.agent(name)
        agent_scores = [read_table(safe_child(AGENT_DIR, name, s) / "scores.parquet", LawBenchScores) for s in SETTINGS]
        frames += agent_scores
        both = pd.concat(agent_scores, ignore_index=True)
        by_task = {(r.setting, r.task): int(r.n_failed) for r in both.itertuples() if r.n_failed}
        agents[name] = AgentInfo(name, model.model, model.is_scripted, int(both.n_failed.sum()), by_task)
    scores = pd.concat(frames, ignore_index=True)
    published = read_table(INTERIM_DIR / "lawbench_published.parquet", LawBenchPublished)
    long, deltas = build_tables(scores, published)
    commit = next(f.commit for f in load_manifest(MANIFEST_FILE).files if f.dataset == "lawbench_items")
    note = (f"Data: open-compass/LawBench@{commit[:10]}, 500 items per task. Published predictions rescored: "
            + ", ".join(sorted(set(published.model))) + ". Scripted agents are labelled.")
    for setting in SETTINGS:
        write_text_atomic(reports / f"lawbench_{setting}.md", render_setting(long, deltas, setting, agents, note))
    write_text_atomic(reports / "lawbench.csv", csv_text(long))
    write_dvc_views("lawbench", reports / "lawbench.csv", list(params.agents), reports)
    worst = deltas.max_abs_diff.max() if len(deltas) else float("nan")
    return (f"reports/lawbench_zero_shot.md, reports/lawbench_one_shot.md and reports/lawbench.csv written "
            f"({len(long):,} long rows; {len(agents)} agents; largest |ours − published| {worst:.2g})")


if __name__ == "__main__":
    main("lawbench_report", lawbench_report)

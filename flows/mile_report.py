"""Stage `mile_report`: the paper-style MILE tables (goal, interaction, client consistency) and their CSV twin.

dvc.yaml → this flow → steps/sql/mile_*.sql (DuckDB over every agent's scores and dialogues) →
steps.mile.report (Markdown, with the paper's published numbers). Writes reports/mile.md and reports/mile.csv.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import duckdb
import pandas as pd
from prefect import task
from prefect.cache_policies import NO_CACHE

from flows.kit.config import PARAMS_FILE, load_params
from flows.kit.monitor import publish_report
from flows.kit.paths import DIALOGUES, PATHS, Paths
from flows.kit.stage import main, stage_flow
from steps.mile.benchmark import BENCHMARK
from steps.mile.params import MileParams
from steps.mile.published import paper_names
from steps.mile.report import csv_frame, render
from steps.mile.schemas import MileDialogues, MileScores
from steps.mile.sources import Mile
from steps.mile.sql import QUERIES as SQL
from steps.reports.dvc_views import write_dvc_views
from steps.reports.labels import size_phrase
from steps.reports.long import long_csv
from steps.reports.runs import agent_infos, run_info
from steps.tables import read_table, write_text_atomic

QUERIES = ("mile_goal", "mile_interaction", "mile_consistency", "mile_rounds", "mile_dialogues")
DIALOGUE_COLUMNS = [
    "agent",
    "instance_id",
    "law_reason",
    "ended_by",
    "turns",
    "client_revisions",
    "lawyer_revisions",
    "blurred",
    "unsupervised",
]


@task(cache_policy=NO_CACHE)
def result_rows(scores: pd.DataFrame, dialogues: pd.DataFrame, agents: pd.DataFrame) -> pd.DataFrame:

    with duckdb.connect() as con:
        con.register("scores", scores)
        con.register("dialogues", dialogues)
        con.register("agents", agents)
        ours = pd.concat([SQL.run(con, q) for q in QUERIES], ignore_index=True)
        con.register("ours", ours)
        return pd.concat([ours, SQL.run(con, "mile_total")], ignore_index=True)


@stage_flow
def mile_report(params_file: Path = PARAMS_FILE, paths: Paths = PATHS) -> str:
    """The paper-style MILE tables of every agent taking part, with the paper's numbers."""
    params = load_params(params_file).for_benchmark("mile")  # the agents that take part in it
    reports = paths.reports
    agents = agent_infos(params, "mile", paths, names=paper_names())
    if not agents:
        raise ValueError("params.yaml lists no agents: nothing to report")
    scores, dialogues = [], []
    for name in agents:
        run_dir = paths.run("mile", name)
        scores.append(read_table(run_dir / "scores.parquet", MileScores))
        dialogues.append(read_table(run_dir / DIALOGUES, MileDialogues)[DIALOGUE_COLUMNS])
        agents[name] = replace(agents[name], sizes={"dialogues": len(dialogues[-1])})
    first = next(iter(agents.values()))
    run = run_info(params, {**first.run["options"], **params.section(MileParams).model_dump()})
    flags = pd.DataFrame(
        {
            "agent": list(agents),
            "model": [a.model for a in agents.values()],
            "agent_scripted": [a.scripted for a in agents.values()],
            "environment_scripted": run.environment_scripted,
        }
    )
    ours: pd.DataFrame = result_rows(
        pd.concat(scores, ignore_index=True), pd.concat(dialogues, ignore_index=True), flags
    )
    sampled_from = len(read_table(paths.interim / "mile.parquet", Mile))
    write_text_atomic(reports / "mile.md", render(ours, agents, run, sampled_from))
    write_text_atomic(reports / "mile.csv", long_csv(csv_frame(ours), table="reports/mile.csv", with_unparsable=True))
    publish_report(reports / "mile.md", "MILE goal and interaction scores (MASER Tables 1-3), ours beside the paper's")
    write_dvc_views(BENCHMARK, reports / "mile.csv", list(params.agents), reports)
    goal = ours[(ours["table"] == "goal") & (ours.metric == "AVE")].set_index("agent").value.round(2).to_dict()
    return (
        f"reports/mile.md and reports/mile.csv written ({len(agents)} agents, "
        f"{size_phrase([len(d) for d in dialogues], 'dialogues per agent')}; "
        f"goal AVE {goal}; judge {run.judge})"
    )


if __name__ == "__main__":
    main(mile_report)

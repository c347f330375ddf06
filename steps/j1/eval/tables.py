"""The J1-EVAL result tables, computed by DuckDB from every agent's scores (`steps/sql/j1_*.sql`)."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import pandas as pd

from steps.j1.envs.catalog import register_environments
from steps.j1.eval.sql import QUERIES

DIALOGUE_COLUMNS = ["agent", "scenario", "instance_id", "exchanges", "ended_by", "failure_causes"]


@dataclass(frozen=True)
class Results:
    """Long frames: cells (agent, scope, metric, component, value ×100, n and counts by status, judge, proxy),
    averages (AVG_OO, AVG_PO, Overall), turns (Table 10), failures (court failure counts), judge_health,
    topics (KQ/LC coverage) and repeats (mean and std per group)."""

    cells: pd.DataFrame
    averages: pd.DataFrame
    turns: pd.DataFrame
    failures: pd.DataFrame
    judge_health: pd.DataFrame
    topics: pd.DataFrame
    repeats: pd.DataFrame


def compute(scores: pd.DataFrame, dialogues: pd.DataFrame, agents: pd.DataFrame, groups: pd.DataFrame) -> Results:
    """Every table from the scores of all agents, their dialogues (deliverables rows), the agents (agent, model,
    agent_scripted, environment_scripted) and the repeats groups ("group", agent)."""
    with duckdb.connect() as con:
        con.register("scores", scores)
        con.register("dialogues", dialogues[DIALOGUE_COLUMNS])
        con.register("agents", agents)
        con.register("groups", groups)
        register_environments(con)
        cells = QUERIES.run(con, "j1_cells")
        con.register("cells", cells)
        return Results(
            cells=cells,
            averages=QUERIES.run(con, "j1_averages"),
            turns=QUERIES.run(con, "j1_turns"),
            failures=QUERIES.run(con, "j1_failures"),
            judge_health=QUERIES.run(con, "j1_judge_health"),
            topics=QUERIES.run(con, "j1_topics"),
            repeats=QUERIES.run(con, "j1_repeats"),
        )


def averages_of(cells: pd.DataFrame) -> pd.DataFrame:
    """AVG_OO, AVG_PO and Overall from cells alone (the same SQL; used to check it on the paper's own cells)."""
    with duckdb.connect() as con:
        con.register("cells", cells)
        register_environments(con)
        return QUERIES.run(con, "j1_averages")

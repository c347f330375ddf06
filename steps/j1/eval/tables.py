"""The J1-EVAL result tables, computed by DuckDB from every agent's scores (`steps/sql/j1_*.sql`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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


def agent_repeats(
    runs: Mapping[str, Sequence[tuple[pd.DataFrame, pd.DataFrame]]], agents: pd.DataFrame
) -> tuple[pd.DataFrame, dict[str, list[str]]]:
    """Tables 11-12 for agents with repeated runs (`agents.<name>.repeats`, docs/statistics.md#repeated-runs): each
    agent's runs (`runs`: agent -> each repeat's (scores, dialogues), repeat 0 first) as a repeats group under the
    agent's name, its runs named `<agent>` and `<agent>/repeat-<i>`; returns the groups' rows of `Results.repeats`
    (mean and sample std of each Table 3 cell over the runs) and the groups (name -> its runs). `agents`: the
    agents' rows as `compute` takes them (agent, model, agent_scripted, environment_scripted)."""
    scores, dialogues, members, table = [], [], [], []
    for agent, repeats in runs.items():
        row = agents[agents.agent == agent]
        for i, (scored, ran) in enumerate(repeats):
            label = agent if i == 0 else f"{agent}/repeat-{i}"
            scores.append(scored.assign(agent=label))
            dialogues.append(ran.assign(agent=label))
            members.append((agent, label))
            table.append(row.assign(agent=label))
    groups = pd.DataFrame(members, columns=["group", "agent"]).astype(str)
    results = compute(
        pd.concat(scores, ignore_index=True),
        pd.concat(dialogues, ignore_index=True),
        pd.concat(table, ignore_index=True),
        groups,
    )
    named: dict[str, list[str]] = {}
    for group, label in members:
        named.setdefault(group, []).append(label)
    return results.repeats, named

"""The long result table: steps/ucl/sql/ucl_long.sql over the run tables (DuckDB), plus what SQL does not compute:
the p-value of every correlation and the bootstrap interval of every overall win rate."""

from __future__ import annotations

from collections.abc import Sequence

import duckdb
import pandas as pd

from steps.reports.agents import AgentInfo
from steps.reports.long import long_query
from steps.ucl.bootstrap import overall_interval
from steps.ucl.sql import QUERIES
from steps.ucl.stats import pearson_p
from steps.ucl.tasks import tasks_frame

INPUTS = ("verdicts", "hint_scores", "dialogues", "paper", "agents")


def agent_flags(
    agents: Sequence[AgentInfo], reference: AgentInfo, judge: str, *, user_scripted: bool, judge_scripted: bool
) -> pd.DataFrame:
    """The `agents` input of ucl_long.sql: each agent's and the reference's role, judge, and whether a scripted
    stand-in touched its numbers: its turns are its own and the user's (`proxy_dialogue`), its hint scores also the
    judge's (`proxy_judged`), its win rates also the reference's (`proxy`: its dialogues are judged against them)."""
    reference_scripted = reference.scripted or user_scripted
    rows = [
        {
            "agent": a.name,
            "role": "agent",
            "judge": judge,
            "proxy": a.scripted or user_scripted or judge_scripted or reference_scripted,
            "proxy_judged": a.scripted or user_scripted or judge_scripted,
            "proxy_dialogue": a.scripted or user_scripted,
        }
        for a in agents
    ]
    rows.append(
        {
            "agent": reference.name,
            "role": "reference",
            "judge": judge,
            "proxy": reference_scripted,
            "proxy_judged": reference_scripted,
            "proxy_dialogue": reference_scripted,
        }
    )
    return pd.DataFrame(rows)


def long_table(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Run ucl_long.sql over `tables` (the INPUTS; `ucl_tasks` is added) and add a p for every r."""
    missing = [name for name in INPUTS if name not in tables]
    if missing:
        raise ValueError(f"ucl_long needs the tables {', '.join(missing)}")
    agents = tables["agents"]  # a frame with `proxy` only: every number of an agent marked alike
    agents = agents.assign(**{c: agents.get(c, agents.proxy) for c in ("proxy_judged", "proxy_dialogue")})
    with duckdb.connect() as con:
        for name, df in {**tables, "agents": agents, "ucl_tasks": tasks_frame()}.items():
            con.register(name, df)
        long = long_query(con, QUERIES.path("ucl_long"), with_unparsable=True)
    long["n"] = long["n"].astype("Int64")
    long["n_failed"] = long["n_failed"].astype("Int64")
    long["n_unparsable"] = long["n_unparsable"].astype("Int64")
    return pd.concat([long, p_values(long), intervals(tables["verdicts"], long)], ignore_index=True)


def p_values(long: pd.DataFrame) -> pd.DataFrame:
    """A `p_…` row (two-sided, Pearson) for every `r_…` row with a value."""
    rs = long[long.metric.str.startswith("r_") & long.value.notna()]
    p = [pearson_p(r, int(n)) for r, n in zip(rs.value, rs.n, strict=True)]
    return rs.assign(metric="p_" + rs.metric.str[2:], value=pd.array(p, dtype="Float64").astype(float))


def intervals(verdicts: pd.DataFrame, long: pd.DataFrame) -> pd.DataFrame:
    """`win_rate_ci_low` / `win_rate_ci_high` rows (overall, ours); n is the number of bootstrap draws."""
    ci = overall_interval(verdicts)
    template = long[(long.metric == "win_rate") & (long.scope == "overall") & (long.source == "ours")]
    rows = []
    for r in ci.itertuples():
        base = template[template.agent == r.agent]
        for metric, value in (("win_rate_ci_low", r.low), ("win_rate_ci_high", r.high)):
            rows.append(base.assign(metric=metric, value=value, n=r.reps))
    return pd.concat(rows, ignore_index=True) if rows else long.iloc[0:0]


def agent_long(
    agent: str, reference: str, judge: str, verdicts: pd.DataFrame, hints: pd.DataFrame, dialogues: pd.DataFrame
) -> pd.DataFrame:
    """The long table of one agent's judged run (its and the reference's `dialogues`), as ucl_report builds it for
    every agent: the judge stage's summary reads its numbers from here, so it says what the report says."""
    from steps.ucl.paper import paper_long

    agents = pd.DataFrame(
        [
            {"agent": agent, "role": "agent", "judge": judge, "proxy": False},
            {"agent": reference, "role": "reference", "judge": judge, "proxy": False},
        ]
    )
    return long_table(
        {"verdicts": verdicts, "hint_scores": hints, "dialogues": dialogues, "paper": paper_long({}), "agents": agents}
    )

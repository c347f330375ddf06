"""What DVC shows of a benchmark: its headline numbers (`dvc metrics`, `dvc exp show`) and its main tables
(`dvc plots`), both cut from the report's CSV twin, so they are the report's numbers by construction.

Metrics: `reports/metrics/<benchmark>.json`, `{agent: {group: {name: value}}}` (DVC shows `oracle.zero_shot.overall`).
Plots: `reports/plots/<name>.csv` with three columns, the row label, `agent` and the value, drawn by the template
`.dvc/plots/bars_by_agent.json` (one bar per agent, one panel per revision; see dvc.yaml `plots:`).
Only the configured agents are kept: the paper's rows (and LawBench's rescored published predictions) stay in
the reports.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class Headline:
    """One headline number: the CSV row (`table`, `scope`, `metric`) and where it goes under the agent."""

    table: str
    scope: str
    metric: str
    key: tuple[str, ...]


@dataclass(frozen=True)
class PlotTable:
    """A plot: the rows of one CSV table with these metrics (and scopes), labelled by `label`."""

    name: str
    table: str
    metrics: tuple[str, ...] | None  # None: every metric
    scopes: tuple[str, ...] | None  # None: every scope
    label: str  # the y column: scope, metric or both ("scope metric")
    label_name: str
    value_name: str


def _levels(setting: str) -> list[Headline]:
    return [
        Headline(setting, scope, "score", (setting, scope))
        for scope in ("overall", "Memorization", "Understanding", "Application")
    ]


LAWBENCH_TASKS = tuple(f"{level}-{i}" for level, k in ((1, 2), (2, 10), (3, 8)) for i in range(1, k + 1))

HEADLINES: dict[str, list[Headline]] = {
    "lawbench": [*_levels("zero_shot"), *_levels("one_shot")],
    "j1": [Headline("table3", "overall", m, (m,)) for m in ("Overall", "AVG_OO", "AVG_PO")],
    "mile": [
        Headline("goal", "overall", "AVE", ("goal", "AVE")),
        Headline("interaction", "overall", "AVE", ("interaction", "AVE")),
        Headline("consistency", "overall", "CONS", ("consistency", "CONS")),
        Headline("total", "overall", "AVE", ("total", "AVE")),
    ],
    "ucl": [
        Headline("win_rate", "overall", "win_rate", ("win_rate",)),
        Headline("win_rate", "overall", "win_rate_balanced", ("win_rate_balanced",)),
        Headline("hint_score", "overall", "hint_score", ("hint_score",)),
    ],
    "plawbench": [Headline("table3", "overall", m, (m,)) for m in ("Overall", "T1", "T2", "T3")],
}

PLOTS: dict[str, list[PlotTable]] = {
    "lawbench": [
        PlotTable(f"lawbench_{s}", s, ("score",), LAWBENCH_TASKS, "scope", "task", "score")
        for s in ("zero_shot", "one_shot")
    ],
    "j1": [PlotTable("j1_table3", "table3", None, None, "scope metric", "metric", "score")],
    "mile": [
        PlotTable("mile_goal", "goal", None, ("overall",), "metric", "metric", "score"),
        PlotTable("mile_interaction", "interaction", None, ("overall",), "metric", "metric", "score"),
    ],
    "ucl": [PlotTable("ucl_win_rate", "win_rate", ("win_rate",), None, "scope", "task", "win_rate")],
    "plawbench": [PlotTable("plawbench_table3", "table3", None, ("overall",), "metric", "score", "rate")],
}


def read_long_csv(path) -> pd.DataFrame:
    """A report's CSV twin as written (the agent named `null` stays a name, not NaN)."""
    return pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={"agent": str, "scope": str})


def _ours(long: pd.DataFrame, agents: list[str]) -> pd.DataFrame:
    return long[(long.source == "ours") & long.agent.isin(agents)]


def headline_metrics(benchmark: str, long: pd.DataFrame, agents: list[str]) -> dict:
    """`{agent: {...: value}}` for every configured agent with a row in the CSV twin; a missing or empty number is
    null (e.g. LawBench's Overall when a task has no score)."""
    keys = ["agent", "table", "scope", "metric"]
    ours = _ours(long, agents).drop_duplicates(keys).set_index(keys).value
    out: dict = {}
    for agent in [a for a in agents if a in set(ours.index.get_level_values(0))]:
        node: dict = out.setdefault(agent, {})
        for h in HEADLINES[benchmark]:
            value = ours.get((agent, h.table, h.scope, h.metric))
            *groups, name = h.key
            target = node
            for g in groups:
                target = target.setdefault(g, {})
            target[name] = None if value is None or math.isnan(float(value)) else float(value)
    return out


def plot_tables(benchmark: str, long: pd.DataFrame, agents: list[str]) -> dict[str, pd.DataFrame]:
    """Each plot's rows (label, agent, value), in the CSV's row order, agents in their params.yaml order."""
    ours = _ours(long, agents)
    out = {}
    for p in PLOTS[benchmark]:
        rows = ours[ours["table"] == p.table]
        if p.metrics is not None:
            rows = rows[rows.metric.isin(p.metrics)]
        if p.scopes is not None:
            rows = rows[rows.scope.isin(p.scopes)]
        label = rows.scope + " " + rows.metric if p.label == "scope metric" else rows[p.label]
        frame = pd.DataFrame({p.label_name: label, "agent": rows.agent, p.value_name: rows.value})
        order = {a: i for i, a in enumerate(agents)}
        out[p.name] = frame.sort_values("agent", key=lambda s: s.map(order), kind="mergesort").reset_index(drop=True)
    return out

"""What DVC shows of a benchmark: its headline numbers (`dvc metrics`, `dvc exp show`) and its main tables
(`dvc plots`), both cut from the report's CSV twin, so they are the report's numbers by construction.

Metrics: `reports/metrics/<benchmark>.json`, `{agent: {group: {name: value}}}` (DVC shows `oracle.zero_shot.overall`).
Plots: `reports/plots/<name>.csv` with three columns, the row label, `agent` and the value, drawn by the template
`.dvc/plots/bars_by_agent.json` (one bar per agent, one panel per revision; see dvc.yaml `plots:`).
Which numbers and tables: the benchmark's registration (`headlines`, `plots` in steps/<benchmark>/benchmark.py).
Only the configured agents are kept: the paper's rows (and LawBench's rescored published predictions) stay in
the reports.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from steps.registry import Benchmark
from steps.tables import write_text_atomic


def read_long_csv(path) -> pd.DataFrame:
    """A report's CSV twin as written (the agent named `null` stays a name, not NaN)."""
    return pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={"agent": str, "scope": str})


def _ours(long: pd.DataFrame, agents: list[str]) -> pd.DataFrame:
    return long[(long.source == "ours") & long.agent.isin(agents)]


def headline_metrics(benchmark: Benchmark, long: pd.DataFrame, agents: list[str]) -> dict:
    """`{agent: {...: value}}` for every configured agent with a row in the CSV twin; a missing or empty number is
    null (e.g. LawBench's Overall when a task has no score)."""
    keys = ["agent", "table", "scope", "metric"]
    ours = _ours(long, agents).drop_duplicates(keys).set_index(keys).value
    out: dict = {}
    for agent in [a for a in agents if a in set(ours.index.get_level_values(0))]:
        node: dict = out.setdefault(agent, {})
        for h in benchmark.headlines:
            value = ours.get((agent, h.table, h.scope, h.metric))
            *groups, name = h.path
            target = node
            for g in groups:
                target = target.setdefault(g, {})
            target[name] = None if value is None or math.isnan(float(value)) else float(value)
    return out


def plot_tables(benchmark: Benchmark, long: pd.DataFrame, agents: list[str]) -> dict[str, pd.DataFrame]:
    """Each plot's rows (label, agent, value), in the CSV's row order, agents in their params.yaml order."""
    ours = _ours(long, agents)
    out = {}
    for p in benchmark.plots:
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


def write_dvc_views(benchmark: Benchmark, csv_path: Path, agents: list[str], reports: Path) -> list[Path]:
    """reports/metrics/<benchmark>.json and reports/plots/<name>.csv from the CSV twin at `csv_path`."""
    long = read_long_csv(csv_path)
    metrics = reports / "metrics" / f"{benchmark.name}.json"
    write_text_atomic(
        metrics, json.dumps(headline_metrics(benchmark, long, agents), indent=2, ensure_ascii=False) + "\n"
    )
    written = [metrics]
    for name, frame in plot_tables(benchmark, long, agents).items():
        path = reports / "plots" / f"{name}.csv"
        write_text_atomic(path, frame.to_csv(index=False, lineterminator="\n"))
        written.append(path)
    return written

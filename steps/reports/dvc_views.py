"""What DVC shows of a benchmark: its headline numbers (`dvc metrics`, `dvc exp show`) and its main tables
(`dvc plots`), both cut from the report's CSV twin, so they are the report's numbers by construction.

Every number here is on one scale, 0–100 (a fraction of the CSV twin × its headline's or plot's `scale`).

Metrics: `reports/metrics/<benchmark>.json`, `{agent: value}`: the benchmark's main number (its first registered
headline: LawBench zero-shot Overall, J1-EVAL Overall, MILE goal AVE, UCL-Bench win rate, PLawBench Overall), so
that `dvc metrics show` is one row per benchmark and one column per agent. Its other headline numbers are nested
in `reports/metrics/details/<benchmark>.json`, `{agent: {group: {name: value}}}` (`oracle.zero_shot.Memorization`):
a report, not a declared DVC metric (every declared metric is a column of `dvc metrics show` and `dvc exp show`),
read with `dvc metrics show reports/metrics/details/<benchmark>.json`.
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


def _scaled(value: float | None, scale: float) -> float | None:
    """A CSV number on the 0–100 scale, rounded to 4 decimals; None for a missing or empty one."""
    if value is None or math.isnan(float(value)):
        return None
    return round(float(value) * scale, 4)


def detail_metrics(benchmark: Benchmark, long: pd.DataFrame, agents: list[str]) -> dict:
    """`{agent: {...: value}}`, every registered headline of every configured agent with a row in the CSV twin, on
    0–100; a missing or empty number is null (e.g. LawBench's Overall when a task has no score)."""
    keys = ["agent", "table", "scope", "metric"]
    ours = _ours(long, agents).drop_duplicates(keys).set_index(keys).value
    out: dict = {}
    for agent in [a for a in agents if a in set(ours.index.get_level_values(0))]:
        node: dict = out.setdefault(agent, {})
        for h in benchmark.headlines:
            *groups, name = h.path
            target = node
            for g in groups:
                target = target.setdefault(g, {})
            target[name] = _scaled(ours.get((agent, h.table, h.scope, h.metric)), h.scale)
    return out


def headline_metrics(benchmark: Benchmark, long: pd.DataFrame, agents: list[str]) -> dict[str, float | None]:
    """`{agent: value}`: the benchmark's main number (its first headline) for every configured agent with a row in
    the CSV twin, on 0–100."""
    if not benchmark.headlines:
        return {}
    main = benchmark.headlines[0]
    node: dict = detail_metrics(benchmark, long, agents)
    out = {}
    for agent, numbers in node.items():
        for key in main.path:
            numbers = numbers[key]
        out[agent] = numbers
    return out


def plot_tables(benchmark: Benchmark, long: pd.DataFrame, agents: list[str]) -> dict[str, pd.DataFrame]:
    """Each plot's rows (label, agent, value on 0–100), in the CSV's row order, agents in their params.yaml order."""
    ours = _ours(long, agents)
    out = {}
    for p in benchmark.plots:
        rows = ours[ours["table"] == p.table]
        if p.metrics is not None:
            rows = rows[rows.metric.isin(p.metrics)]
        if p.scopes is not None:
            rows = rows[rows.scope.isin(p.scopes)]
        label = rows.scope + " " + rows.metric if p.label == "scope metric" else rows[p.label]
        values = [_scaled(v, p.scale) for v in rows.value]
        frame = pd.DataFrame({p.label_name: label, "agent": rows.agent, p.value_name: values})
        order = {a: i for i, a in enumerate(agents)}
        out[p.name] = frame.sort_values("agent", key=lambda s: s.map(order), kind="mergesort").reset_index(drop=True)
    return out


def _json(value: dict) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def write_dvc_views(benchmark: Benchmark, csv_path: Path, agents: list[str], reports: Path) -> list[Path]:
    """reports/metrics/<benchmark>.json, reports/metrics/details/<benchmark>.json and reports/plots/<name>.csv from
    the CSV twin at `csv_path`."""
    long = read_long_csv(csv_path)
    metrics = reports / "metrics" / f"{benchmark.name}.json"
    details = reports / "metrics" / "details" / f"{benchmark.name}.json"
    write_text_atomic(metrics, _json(headline_metrics(benchmark, long, agents)))
    write_text_atomic(details, _json(detail_metrics(benchmark, long, agents)))
    written = [metrics, details]
    for name, frame in plot_tables(benchmark, long, agents).items():
        path = reports / "plots" / f"{name}.csv"
        write_text_atomic(path, frame.to_csv(index=False, lineterminator="\n"))
        written.append(path)
    return written

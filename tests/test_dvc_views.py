"""DVC metrics and plots: each benchmark's headline numbers and main tables, cut from its report's CSV twin, on
0–100, as `dvc metrics show` and `dvc plots show` read them from the committed outputs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from steps.benchmarks import benchmark
from steps.reports.dvc_views import detail_metrics, headline_metrics, plot_tables, read_long_csv
from tests.conftest import ROOT

BENCHMARKS = ["lawbench", "j1", "mile", "ucl", "plawbench"]
ROUNDED = 5e-5  # the DVC views' numbers are rounded to 4 decimals (on 0–100)
COLUMNS = ["benchmark", "table", "agent", "scope", "metric", "value", "n", "n_failed", "judge", "proxy", "source"]


def _dvc_text(*args: str) -> str:
    dvc = Path(sys.executable).parent / "dvc"
    done = subprocess.run([str(dvc), *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _dvc(*args: str) -> dict:
    return json.loads(_dvc_text(*args, "--json"))


def _agents(long: pd.DataFrame) -> list[str]:
    """The configured agents with rows of their own in a report's CSV twin."""
    configured = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))["agents"]
    return [a for a in configured if ((long.source == "ours") & (long.agent == a)).any()]


def _row(long: pd.DataFrame, agent: str, table: str, scope: str, metric: str) -> float:
    hit = long[
        (long.source == "ours")
        & (long.agent == agent)
        & (long["table"] == table)
        & (long.scope == scope)
        & (long.metric == metric)
    ]
    return float(hit.value.item())


def test_headlines_are_the_csv_rows_of_the_configured_agents_only_on_0_to_100():
    long = pd.DataFrame(
        [
            ["ucl", "win_rate", "null", "overall", "win_rate", 50.0, 10, 0, "j", True, "ours"],
            ["ucl", "win_rate", "null", "overall", "win_rate_balanced", 47.5, 10, 0, "j", True, "ours"],
            ["ucl", "win_rate", "null", "1-1", "win_rate", 40.0, 10, 0, "j", True, "ours"],
            ["ucl", "win_rate", "GPT-4", "overall", "win_rate", 71.0, None, None, "", False, "paper"],
            ["ucl", "win_rate", "scripted_null", "overall", "win_rate", 50.0, 10, 0, "j", True, "ours"],
        ],
        columns=COLUMNS,
    )
    assert headline_metrics(benchmark("ucl"), long, ["null", "absent"]) == {"null": 50.0}  # the first headline
    assert detail_metrics(benchmark("ucl"), long, ["null", "absent"]) == {
        "null": {"win_rate": 50.0, "win_rate_balanced": 47.5, "hint_score": None}  # no hint score row: null
    }
    [plot] = plot_tables(benchmark("ucl"), long, ["null"]).values()
    assert plot.values.tolist() == [["overall", "null", 50.0], ["1-1", "null", 40.0]]
    # a fraction in the CSV (LawBench's scores) is × 100 in the metrics and the plots
    lawbench = pd.DataFrame(
        [
            ["lawbench", "zero_shot", "a", "overall", "score", 0.4321, 500, 0, "", False, "ours"],
            ["lawbench", "zero_shot", "a", "1-1", "score", 0.25, 500, 0, "", False, "ours"],
        ],
        columns=COLUMNS,
    )
    assert headline_metrics(benchmark("lawbench"), lawbench, ["a"]) == {"a": 43.21}
    assert detail_metrics(benchmark("lawbench"), lawbench, ["a"])["a"]["zero_shot"]["overall"] == 43.21
    zero_shot = plot_tables(benchmark("lawbench"), lawbench, ["a"])["lawbench_zero_shot"]
    assert zero_shot.values.tolist() == [["1-1", "a", 25.0]]


def test_every_benchmark_declares_its_metrics_and_plots_in_dvc_yaml():
    pipeline = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))
    declared = [next(iter(m)) for s in pipeline["stages"].values() for m in s.get("metrics", [])]
    assert sorted(declared) == sorted(f"reports/metrics/{b}.json" for b in BENCHMARKS)
    plots = {next(iter(p)): next(iter(p.values())) for p in pipeline["plots"]}
    assert set(plots) == {f"reports/plots/{p.name}.csv" for b in BENCHMARKS for p in benchmark(b).plots}
    outs = {next(iter(o)) if isinstance(o, dict) else o for s in pipeline["stages"].values() for o in s.get("outs", [])}
    assert set(plots) <= outs  # each plot's data is a stage's output, so dvc.lock records it
    for path, spec in plots.items():
        header = (ROOT / path).read_text(encoding="utf-8").splitlines()[0].split(",")
        assert header == [spec["y"], "agent", spec["x"]] and spec["template"] == "bars_by_agent", path
    assert (ROOT / ".dvc/plots/bars_by_agent.json").is_file()


@pytest.mark.parametrize("name", BENCHMARKS)
def test_dvc_metrics_show_gives_the_reports_headline_numbers(name):
    shown = _dvc("metrics", "show")[""]["data"][f"reports/metrics/{name}.json"]["data"]
    details = _dvc("metrics", "show", f"reports/metrics/details/{name}.json")[""]["data"]
    details = details[f"reports/metrics/details/{name}.json"]["data"]
    long = read_long_csv(ROOT / "reports" / f"{name}.csv")
    agents = _agents(long)
    assert set(shown) == set(details) == set(agents) and agents
    main = benchmark(name).headlines[0]
    for agent in agents:
        assert shown[agent] == pytest.approx(
            _row(long, agent, main.table, main.scope, main.metric) * main.scale, abs=ROUNDED
        )
        for h in benchmark(name).headlines:
            node = details[agent]
            for key in h.path:
                node = node[key]
            assert node == pytest.approx(_row(long, agent, h.table, h.scope, h.metric) * h.scale, abs=ROUNDED), (
                agent,
                h,
            )
            assert 0 <= node <= 100


def test_dvc_metrics_show_is_one_row_per_benchmark_and_one_column_per_agent():
    """The declared metrics are the main numbers only: the table is as wide as the agents, not their details."""
    lines = _dvc_text("metrics", "show").splitlines()
    configured = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))["agents"]
    assert lines[0].split() == ["Path", *sorted(a for a in configured if a in lines[0].split())]
    assert sorted(line.split()[0] for line in lines[1:]) == sorted(f"reports/metrics/{b}.json" for b in BENCHMARKS)
    assert max(map(len, lines)) <= 120


def test_dvc_plots_show_draws_the_reports_tables_by_agent():
    shown = _dvc("plots", "show")["data"]
    for name in BENCHMARKS:
        long = read_long_csv(ROOT / "reports" / f"{name}.csv")
        for p in benchmark(name).plots:
            [plot] = shown[f"reports/plots/{p.name}.csv"]
            values = plot["content"]["data"]["values"]
            assert plot["content"]["spec"]["encoding"]["color"]["field"] == "agent"
            assert {v["agent"] for v in values} == set(_agents(long)) and len(values) > 0
            for v in values:
                scope, metric = _scope_and_metric(p, v[p.label_name])
                value = float(v[p.value_name])
                assert value == pytest.approx(_row(long, v["agent"], p.table, scope, metric) * p.scale, abs=ROUNDED)
                assert 0 <= value <= 100


def _scope_and_metric(p, label: str) -> tuple[str, str]:
    """The CSV row a plot's label stands for (see steps/registry.py: Plot)."""
    if p.label == "scope metric":
        scope, metric = label.split(" ", 1)
        return scope, metric
    if p.label == "scope":
        return label, p.metrics[0]
    return p.scopes[0], label

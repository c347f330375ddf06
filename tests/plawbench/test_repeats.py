"""Repeated runs (`agents.<name>.repeats`) in the PLawBench report: a scripted sampling agent answering twice gives
the mean over its runs, the between-run SD and an interval wider than one run's (docs/statistics.md#repeated-runs)."""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import pandas as pd
import pytest

from flows.kit.paths import Paths
from flows.kit.stage import run_stage
from flows.run import plawbench_judge, plawbench_predict, plawbench_report, plawbench_rubrics
from steps.plawbench.intervals import item_scores_of
from steps.plawbench.schemas import PlawScores, PlawTasks
from steps.reports.repeats import SD_TABLE
from steps.sources.tables import interim_tables
from steps.stats.cells import cell_intervals
from steps.tables import read_table, to_arrow, write_parquet_atomic
from tests.helpers import sampler_params
from tests.plawbench.conftest import NAMES

pytestmark = pytest.mark.slow  # runs stages end to end


def _params(tmp_path: Path, repeats: int) -> Path:
    return sampler_params(tmp_path, repeats, plawbench={"limit": 2, "multiturn": {"enabled": False}})


def _cell(csv: pd.DataFrame, table: str = "table3", scope: str = "overall", metric: str = "T2") -> pd.Series:
    return csv[(csv.table == table) & (csv.agent == "sampler") & (csv.scope == scope) & (csv.metric == metric)].iloc[0]


def test_two_repeats_in_the_plawbench_report(tmp_path, sources):
    paths = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=tmp_path / ".cache")
    for name in NAMES:
        write_parquet_atomic(
            to_arrow(sources[name], dict(interim_tables()[name].arrow_types)), paths.interim / f"{name}.parquet"
        )
    two = _params(tmp_path, 2)
    assert run_stage("plawbench_rubrics", plawbench_rubrics, params_file=two, paths=paths) == 0
    for stage, flow in (("plawbench_predict", plawbench_predict), ("plawbench_judge", plawbench_judge)):
        assert run_stage(stage, flow, agent_name="sampler", params_file=two, paths=paths) == 0
    assert run_stage("plawbench_report", plawbench_report, params_file=two, paths=paths) == 0
    single = Paths(data=paths.data, reports=tmp_path / "single", cache=paths.cache)  # repeat 0 alone
    assert run_stage("plawbench_report", plawbench_report, params_file=_params(tmp_path, 1), paths=single) == 0

    tasks = read_table(paths.shared("plawbench") / "tasks.parquet", PlawTasks)
    runs = []  # each run's T2 and its interval, as the report of that run alone computes them
    for i in range(2):
        scores = read_table(paths.repeat_run("plawbench", "sampler", i) / "scores.parquet", PlawScores)
        cells = cell_intervals(item_scores_of(scores, tasks)).set_index(["agent", "table", "scope", "metric"])
        runs.append(cells.loc[("sampler", "table3", "overall", "T2")])
    rates = [r.estimate for r in runs]
    assert rates[0] != rates[1]  # each repeat answered its own way

    csv = pd.read_csv(paths.reports / "plawbench.csv", keep_default_na=False, na_values=[""])
    one = pd.read_csv(single.reports / "plawbench.csv", keep_default_na=False, na_values=[""])
    mean, alone, sd = _cell(csv), _cell(one), _cell(csv, SD_TABLE, "table3/overall")
    assert alone.value == pytest.approx(rates[0], abs=1e-9)
    assert mean.value == pytest.approx(sum(rates) / 2, abs=1e-9)
    assert sd.value == pytest.approx(statistics.stdev(rates), abs=1e-9) and sd.value > 0 and sd.n == 2
    se = math.sqrt(sum(r.se**2 for r in runs) / 2 + statistics.stdev(rates) ** 2 / 2)
    assert mean.se == pytest.approx(se, abs=1e-6) and mean.ci_method.startswith("repeats(k=2)+")
    # wider than a run of the runs' mean precision (repeat 1's SE is the smaller here: repeat 0 alone is wider
    # than the within-run part only, not than the combination's; docs/statistics.md#repeated-runs)
    within = math.sqrt(sum(r.se**2 for r in runs) / 2)
    assert mean.se > within and (mean.ci_high - mean.ci_low) / 2 > 1.96 * within
    report = (paths.reports / "plawbench.md").read_text(encoding="utf-8")
    assert f"| sampler | 2 | table3 | overall | T2 | {mean.value * 100:.1f} ± {sd.value * 100:.1f} |" in report
    assert "`data/plawbench/runs/sampler/` and `repeat-1/`." in report
    assert "## Repeated runs" not in (single.reports / "plawbench.md").read_text(encoding="utf-8")

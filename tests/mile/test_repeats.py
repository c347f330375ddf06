"""Repeated runs (`agents.<name>.repeats`) in the MILE report: a scripted sampling lawyer simulated three times gives
the mean over its runs, the between-run SD and an interval that includes the run-to-run variance
(docs/statistics.md#repeated-runs)."""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import pandas as pd
import pytest

from flows.kit.paths import Paths
from flows.kit.stage import run_stage
from flows.run import mile_judge, mile_report, mile_simulate
from steps.mile.intervals import item_scores_of
from steps.mile.schemas import MileDialogues, MileScores
from steps.reports.repeats import SD_TABLE
from steps.stats.cells import cell_intervals
from steps.tables import read_table
from tests.helpers import project_paths, sampler_params

pytestmark = pytest.mark.slow  # runs stages end to end


def _params(tmp_path: Path, repeats: int) -> Path:
    return sampler_params(tmp_path, repeats, mile={"sample": 4})


def _cell(csv: pd.DataFrame, table: str = "interaction", scope: str = "overall") -> pd.Series:
    return csv[(csv.table == table) & (csv.agent == "sampler") & (csv.scope == scope) & (csv.metric == "AVE")].iloc[0]


def test_three_repeats_in_the_mile_report(tmp_path, interim):
    paths = project_paths(tmp_path, interim)
    three = _params(tmp_path, 3)
    for stage, flow in (("mile_simulate", mile_simulate), ("mile_judge", mile_judge)):
        assert run_stage(stage, flow, agent_name="sampler", params_file=three, paths=paths) == 0
    assert run_stage("mile_report", mile_report, params_file=three, paths=paths) == 0
    single = Paths(data=paths.data, reports=tmp_path / "single", cache=paths.cache)  # repeat 0 alone
    assert run_stage("mile_report", mile_report, params_file=_params(tmp_path, 1), paths=single) == 0

    # each run's interaction AVE and its interval, as the report of that run alone computes them (the goal AVE of a
    # lawyer who said nothing is the same in every run)
    runs = []
    for i in range(3):
        folder = paths.repeat_run("mile", "sampler", i)
        scores = read_table(folder / "scores.parquet", MileScores)
        dialogues = read_table(folder / "dialogues.parquet", MileDialogues)
        cells = cell_intervals(item_scores_of(scores, dialogues)).set_index(["agent", "table", "scope", "metric"])
        runs.append(cells.loc[("sampler", "interaction", "overall", "AVE")])
    rates = [r.estimate for r in runs]
    assert len(set(rates)) == 3  # each repeat answered its own way

    csv = pd.read_csv(paths.reports / "mile.csv", keep_default_na=False, na_values=[""])
    one = pd.read_csv(single.reports / "mile.csv", keep_default_na=False, na_values=[""])
    mean, alone, sd = _cell(csv), _cell(one), _cell(csv, SD_TABLE, "interaction/overall")
    assert alone.value == pytest.approx(rates[0], abs=1e-6)
    assert mean.value == pytest.approx(sum(rates) / 3, abs=1e-6)
    assert sd.value == pytest.approx(statistics.stdev(rates), abs=1e-6) and sd.value > 0 and sd.n == 3
    within = math.sqrt(sum(r.se**2 for r in runs) / 3)
    assert mean.se == pytest.approx(math.sqrt(within**2 + statistics.stdev(rates) ** 2 / 3), abs=1e-6)
    assert mean.ci_method.startswith("repeats(k=3)+") and mean.se > within
    assert mean.ci_high - mean.ci_low > alone.ci_high - alone.ci_low  # wider than the single run's
    report = (paths.reports / "mile.md").read_text(encoding="utf-8")
    assert f"| sampler | 3 | interaction | overall | AVE | {mean.value:.1f} ± {sd.value:.1f} |" in report
    assert "`data/mile/runs/sampler/` and `repeat-1/` … `repeat-2/` in it" in report
    assert "## Repeated runs" not in (single.reports / "mile.md").read_text(encoding="utf-8")

"""Repeated runs (`agents.<name>.repeats`) in the LawBench report: a scripted sampling agent predicting three times
gives the mean over its runs, the between-run SD and an interval wider than one run's
(docs/statistics.md#repeated-runs)."""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import pandas as pd
import pytest

from flows.kit.paths import Paths
from flows.kit.stage import run_stage
from flows.run import lawbench_predict, lawbench_report
from steps.lawbench.intervals import item_scores_of
from steps.lawbench.schemas import LawBenchItemScores, LawBenchScores
from steps.lawbench.sources import LawBenchPublished
from steps.lawbench.stages import ITEM_SCORES, PUBLISHED_ITEMS, PUBLISHED_SCORES
from steps.reports.repeats import SD_TABLE
from steps.stats.cells import cell_intervals
from steps.tables import read_table, write_table
from tests.helpers import project_paths, sampler_params, write_lawbench_interim

pytestmark = pytest.mark.slow  # runs stages end to end


def _params(tmp_path: Path, repeats: int) -> Path:
    return sampler_params(tmp_path, repeats, lawbench={"limit": 3})


def _overall(csv: pd.DataFrame, table: str = "zero_shot", scope: str = "overall") -> pd.Series:
    rows = csv[(csv.table == table) & (csv.agent == "sampler") & (csv.scope == scope) & (csv.metric == "score")]
    return rows.iloc[0]


def test_three_repeats_in_the_lawbench_report(tmp_path, mirror, manifest):
    interim = write_lawbench_interim(mirror, manifest, tmp_path / "interim")
    paths = project_paths(tmp_path, interim)
    three = _params(tmp_path, 3)
    args = {"agent_name": "sampler", "setting": "zero_shot", "params_file": three, "paths": paths}
    assert run_stage("lawbench_predict", lawbench_predict, **args) == 0
    folders = [paths.repeat_run("lawbench", "sampler", i, "zero_shot") for i in range(3)]
    # the published scores the report sets ours beside: repeat 0's under a paper model's name (the rescoring of
    # every published prediction is too slow for a test)
    first = read_table(folders[0] / "scores.parquet", LawBenchScores)
    write_table(first.assign(agent="paper"), paths.shared("lawbench") / PUBLISHED_SCORES, LawBenchScores, table="s")
    items = read_table(folders[0] / ITEM_SCORES, LawBenchItemScores)
    write_table(items.assign(agent="paper"), paths.shared("lawbench") / PUBLISHED_ITEMS, LawBenchItemScores, table="i")
    published = first.rename(columns={"agent": "model"}).assign(model="paper")
    published = published[["setting", "model", "task", "score", "abstention_rate"]].fillna(0.0)
    write_table(published, paths.interim / "lawbench_published.parquet", LawBenchPublished, table="p")

    assert run_stage("lawbench_report", lawbench_report, params_file=three, paths=paths) == 0
    single = Paths(data=paths.data, reports=tmp_path / "single", cache=paths.cache)  # repeat 0 alone
    assert run_stage("lawbench_report", lawbench_report, params_file=_params(tmp_path, 1), paths=single) == 0

    runs = []  # each run's overall score and interval, as the report of that run alone computes them
    for f in folders:
        cells = cell_intervals(item_scores_of(read_table(f / ITEM_SCORES, LawBenchItemScores)))
        runs.append(
            cells.set_index(["agent", "table", "scope", "metric"]).loc[("sampler", "zero_shot", "overall", "score")]
        )
    scores = [r.estimate for r in runs]
    assert len(set(scores)) == 3  # each repeat answered its own way

    csv = pd.read_csv(paths.reports / "lawbench.csv", keep_default_na=False, na_values=[""])
    one = pd.read_csv(single.reports / "lawbench.csv", keep_default_na=False, na_values=[""])
    mean, alone, sd = _overall(csv), _overall(one), _overall(csv, SD_TABLE, "zero_shot/overall")
    assert alone.value == pytest.approx(scores[0], abs=1e-6)
    assert mean.value == pytest.approx(sum(scores) / 3, abs=1e-6)
    assert sd.value == pytest.approx(statistics.stdev(scores), abs=1e-6) and sd.value > 0 and sd.n == 3
    se = math.sqrt(sum(r.se**2 for r in runs) / 3 + statistics.stdev(scores) ** 2 / 3)
    assert mean.se == pytest.approx(se, abs=1e-6) and mean.ci_method.startswith("repeats(k=3)+")
    assert mean.ci_high - mean.ci_low > alone.ci_high - alone.ci_low  # wider than the single run's
    report = (paths.reports / "lawbench_zero_shot.md").read_text(encoding="utf-8")
    assert f"| sampler | 3 | zero_shot | overall | score | {mean.value * 100:.1f} ± {sd.value * 100:.1f} |" in report
    assert "`data/lawbench/runs/sampler/` and `repeat-1/` … `repeat-2/` in it" in report
    assert "## Repeated runs" not in (single.reports / "lawbench_zero_shot.md").read_text(encoding="utf-8")

"""Repeated runs (`agents.<name>.repeats`) on UCL-Bench, the stage level: a scripted sampling agent with
`repeats: 3` makes three runs with their own seeds, calls and answers; the report gives the mean over them, the
between-run SD and an interval wider than one run's (docs/statistics.md#repeated-runs)."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import pandas as pd
import pytest

from flows.kit.paths import Paths
from flows.kit.stage import run_stage
from flows.run import ucl_judge, ucl_reference, ucl_report, ucl_simulate
from steps.reports.repeats import SD_TABLE
from steps.schemas import Turns
from steps.stats.cells import cell_intervals
from steps.tables import read_table, write_table
from steps.ucl.intervals import item_scores_of
from steps.ucl.schemas import UclDialogues, UclHintScores, UclVerdicts
from steps.ucl.sources import Ucl
from tests.helpers import sampler_params


def _params(tmp_path: Path, repeats: int) -> Path:
    return sampler_params(
        tmp_path,
        repeats,
        ucl={"limit": 10, "tasks": ["Article Recitation", "Legal Issue Consultation"], "max_exchanges": 1},
    )


def _run(params: Path, paths: Paths) -> None:
    assert run_stage("ucl_reference", ucl_reference, params_file=params, paths=paths) == 0
    assert run_stage("ucl_simulate", ucl_simulate, agent_name="sampler", params_file=params, paths=paths) == 0
    assert run_stage("ucl_judge", ucl_judge, agent_name="sampler", params_file=params, paths=paths) == 0
    assert run_stage("ucl_report", ucl_report, params_file=params, paths=paths) == 0


def _cell(csv: pd.DataFrame, table: str = "win_rate", scope: str = "1-1") -> pd.Series:
    """Task 1-1's win rate (10 items, both orders: a clustered SE; the overall AVG needs all 22 tasks)."""
    return csv[(csv.table == table) & (csv.scope == scope) & (csv.metric == "win_rate")].iloc[0]


@pytest.mark.slow
def test_three_repeats_of_a_sampling_agent(tmp_path, ucl_items):
    paths = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=tmp_path / ".cache")
    write_table(ucl_items, paths.interim / "ucl.parquet", Ucl, table="ucl")
    _run(_params(tmp_path, 3), paths)
    # the report of repeat 0 alone: what the agent without repeats reports (its run is repeat 0's, below)
    single = Paths(data=paths.data, reports=tmp_path / "single", cache=paths.cache)
    assert run_stage("ucl_report", ucl_report, params_file=_params(tmp_path, 1), paths=single) == 0

    # three runs: their own folders, seeds, run ids and call keys; repeat 0 is the run without repeats, byte for byte
    folders = [paths.repeat_run("ucl", "sampler", i) for i in range(3)]
    assert [f.relative_to(paths.runs("ucl")).as_posix() for f in folders] == [
        "sampler",
        "sampler/repeat-1",
        "sampler/repeat-2",
    ]
    specs = [json.loads((f / "run.json").read_text(encoding="utf-8")) for f in folders]
    assert [s["decoding"]["seed"] for s in specs] == [None, 1, 2] and [s.get("repeat") for s in specs] == [None, 1, 2]
    assert len({s["run_id"] for s in specs}) == 3
    usage = [pd.read_parquet(f / "usage.parquet") for f in folders]
    keys = [set(u.call_key[u.model_name == "sampler"]) for u in usage]  # the agent's calls (the user's first: shared)
    assert not (keys[0] & keys[1]) and not (keys[0] & keys[2]) and not (keys[1] & keys[2])
    turns = [read_table(f / "turns.parquet", Turns) for f in folders]
    answers = [t[t.model == "scripted/sampler"].sort_values(["instance_id", "turn_index"]).text.tolist() for t in turns]
    assert answers[0] != answers[1] and answers[1] != answers[2] and answers[0] != answers[2]
    assert len({read_table(f / "verdicts.parquet", UclVerdicts).value.mean() for f in folders}) > 1

    csv = pd.read_csv(paths.reports / "ucl.csv", keep_default_na=False, na_values=[""])
    one = pd.read_csv(single.reports / "ucl.csv", keep_default_na=False, na_values=[""])
    mean, alone, sd = _cell(csv), _cell(one), _cell(csv, SD_TABLE, "win_rate/1-1")
    runs = []  # each run's overall win rate and its own interval, as the report of that run alone gives them
    for f in folders:
        verdicts = read_table(f / "verdicts.parquet", UclVerdicts).assign(agent="sampler")
        hints = read_table(f / "hint_scores.parquet", UclHintScores).assign(agent="sampler")
        dialogues = read_table(f / "dialogues.parquet", UclDialogues).assign(agent="sampler")
        cells = cell_intervals(item_scores_of(verdicts, hints, dialogues)).set_index(["table", "scope", "metric"])
        runs.append(cells.loc[("win_rate", "1-1", "win_rate")])
    wins = [r.estimate for r in runs]
    assert runs[0].estimate == pytest.approx(alone.value) and runs[0].ci_low == pytest.approx(alone.ci_low, abs=1e-6)
    assert mean.value == pytest.approx(sum(wins) / 3, abs=1e-6)
    assert sd.value == pytest.approx(statistics.stdev(wins), abs=1e-6) and sd.value > 0 and sd.n == 3
    se = math.sqrt(sum(r.se**2 for r in runs) / 3 + statistics.stdev(wins) ** 2 / 3)
    assert mean.se == pytest.approx(se, abs=1e-6)
    assert mean.ci_method.startswith("repeats(k=3)+")
    assert mean.ci_high - mean.ci_low > alone.ci_high - alone.ci_low  # wider than the single run's
    report = (paths.reports / "ucl.md").read_text(encoding="utf-8")
    assert "## Repeated runs" in report and f"| sampler | 3 | win_rate | 1-1 | win_rate | {mean.value:.1f} ± " in report
    assert "## Repeated runs" not in (single.reports / "ucl.md").read_text(encoding="utf-8")

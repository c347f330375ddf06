"""MILE's judge stage with a panel of judges: each member's rows kept in scores_panel.parquet, their mean the score;
a single judge writes the same scores and run id as before, and an empty members' table."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.kit.stage import run_stage
from flows.run import mile_judge, mile_simulate
from steps.mile.schemas import MileScores
from steps.tables import read_table
from tests.helpers import project_paths

pytestmark = pytest.mark.slow  # runs stages end to end

PANEL = ["scripted/judge", "scripted/judge_contrary"]


def _judge(root: Path, interim: Path, judge: object) -> tuple[bytes, str]:
    params = {
        "agents": {"oracle": {"model": "scripted/oracle"}},
        "environment": {"model": "scripted/persona"},
        "judge": {"model": "scripted/judge"},
        "llm": {"cache_dir": str(root / "llm")},
        "mile": {"sample": 2, **({"judge": judge} if judge is not None else {})},
    }
    (root / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    args = {"params_file": root / "params.yaml", "paths": project_paths(root, interim)}
    if not (root / "data/mile/runs/oracle/run.json").is_file():
        assert run_stage("mile_simulate", mile_simulate, agent_name="oracle", **args) == 0
    assert run_stage("mile_judge", mile_judge, agent_name="oracle", **args) == 0
    run = root / "data/mile/runs/oracle"
    return (run / "scores.parquet").read_bytes(), json.loads((run / "judge/run.json").read_text())["run_id"]


def test_a_panel_keeps_each_members_rows_and_scores_their_mean(tmp_path, interim):
    single, single_id = _judge(tmp_path, interim, None)
    run = tmp_path / "data/mile/runs/oracle"
    assert read_table(run / "scores_panel.parquet", MileScores).empty  # one judge: no members' rows
    one = read_table(run / "scores.parquet", MileScores)

    _, panel_id = _judge(tmp_path, interim, PANEL)
    assert panel_id != single_id  # the panel is part of the judge run's identity
    members = read_table(run / "scores_panel.parquet", MileScores)
    scores = read_table(run / "scores.parquet", MileScores)
    assert len(scores) == len(one) and list(scores.columns) == list(one.columns)
    asked = one[one.judge == "scripted/judge"]
    assert sorted(members.judge.unique()) == PANEL
    assert (members.judge.value_counts() == len(asked)).all()  # every member judged every judged row
    label = "panel(mean): scripted/judge + scripted/judge_contrary"
    assert (scores.judge == label).sum() == len(asked)
    rules = scores[scores.judge == "rule"].reset_index(drop=True)
    pd.testing.assert_frame_equal(rules, one[one.judge == "rule"].reset_index(drop=True))
    keys = ["instance_id", "stage", "metric", "turn"]
    mean = members.groupby(keys, dropna=False, sort=True).value.mean()
    got = scores[scores.judge == label].set_index(keys).value.sort_index()
    pd.testing.assert_series_equal(got, mean, check_names=False)

    again, again_id = _judge(tmp_path, interim, None)
    assert (again, again_id) == (single, single_id)  # back to one judge: the same bytes and run id

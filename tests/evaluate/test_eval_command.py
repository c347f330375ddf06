"""`jurisflow eval` end to end in a copy of the session's finished small run: the new agent's LawBench stages and the
report run, the other agents' stages stay up to date, and the printed numbers are the report's CSV twin's."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.helpers import SmallRun

pytestmark = [pytest.mark.slow, pytest.mark.timeout(2400)]
BIN = Path(sys.executable).parent


def _dvc_status(copy: Path, env: dict, agents: tuple[str, ...]) -> str:
    stages = [f"lawbench_predict@{a}-{s}" for a in agents for s in ("zero_shot", "one_shot")]
    return subprocess.run(
        [str(BIN / "dvc"), "status", *stages, "lawbench_report"],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_eval_runs_one_agent_and_leaves_the_others_up_to_date(tmp_path, small: SmallRun):
    copy = small.copy_to(tmp_path / "project")  # the session's finished small run: every agent's stages ran
    env = small.env
    assert "up to date" in _dvc_status(copy, env, ("oracle", "null"))

    done = subprocess.run(
        [
            str(BIN / "jurisflow"),
            "eval",
            "--agent",
            "probe",
            "--model",
            "scripted/oracle",
            "--benchmarks",
            "lawbench",
            "--limit",
            "2",
        ],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    ran = re.findall(r"Running stage '([^']+)'", done.stdout)
    assert sorted(ran) == ["lawbench_predict@probe-one_shot", "lawbench_predict@probe-zero_shot", "lawbench_report"]
    # the other agents' stages included: nothing to run for them
    assert "Data and pipelines are up to date" in _dvc_status(copy, env, ("oracle", "null", "probe"))
    for setting in ("zero_shot", "one_shot"):
        run = (copy / "data/lawbench/runs/probe" / setting / "run.json").read_text()
        assert '"limit": 2' in run  # the agent's own limit (the shared one is 3)

    csv = pd.read_csv(copy / "reports/lawbench.csv", keep_default_na=False, na_values=[""])
    for setting, label in (("zero_shot", "zero-shot"), ("one_shot", "one-shot")):
        row = csv[
            (csv["table"] == setting) & (csv.agent == "probe") & (csv.scope == "overall") & (csv.metric == "score")
        ].iloc[0]
        printed = re.search(rf"LawBench {label} Overall\s+([\d.]+) \(n (\d+)\)", done.stdout)
        assert printed and float(printed.group(1)) == round(row.value * 100, 2) and int(printed.group(2)) == row.n
    assert "probe" in yaml_agents(copy) and "runs:" in (copy / "params.yaml").read_text()


def yaml_agents(copy: Path) -> dict:
    import yaml

    return yaml.safe_load((copy / "params.yaml").read_text())["agents"]

"""The estimate of a scripted configuration is what a run makes: in a small copy of the project, `dvc repro
data_report` runs every model-calling stage (the data card reads every usage table); for each stage that dvc.lock
records with a usage table, the estimate's calls per role and model, their distinct requests and their tokens
(scripted models count one token per character) equal the table's. The stage names are DVC's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.estimate import estimate
from flows.kit.config import load_params
from flows.kit.paths import Paths
from tests.helpers import SMALL, copy_project

pytestmark = [pytest.mark.slow, pytest.mark.timeout(2400)]
BIN = Path(sys.executable).parent


def _usage_tables(project: Path) -> dict[str, list[Path]]:
    """Stage name -> its usage tables, from dvc.lock."""
    lock = yaml.safe_load((project / "dvc.lock").read_text(encoding="utf-8"))
    tables = {
        name: [project / o["path"] for o in stage.get("outs", []) if o["path"].endswith("usage.parquet")]
        for name, stage in lock["stages"].items()
    }
    return {name: paths for name, paths in tables.items() if paths}


def test_the_estimate_of_a_scripted_run_is_the_run(tmp_path, mirror, prefect_api):
    project = tmp_path / "jurisflow"
    copy_project(project, {**SMALL, "llm": {"cache_dir": str(tmp_path / "cache")}})
    env = {
        **os.environ,
        "JURISFLOW_MIRROR": str(mirror),
        "PREFECT_API_URL": prefect_api,
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
    }
    done = subprocess.run(
        [str(BIN / "dvc"), "repro", "data_report"], cwd=project, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

    report = estimate(load_params(project / "params.yaml"), paths=Paths(data=project / "data"))
    tables = _usage_tables(project)
    estimated = {s.stage for s in report.sent}
    ran = {name for name, paths in tables.items() if any(len(pd.read_parquet(p)) for p in paths)}
    assert estimated == ran  # the same stages call models, under the same names
    for stage, paths in tables.items():
        usage = pd.concat([pd.read_parquet(p) for p in paths], ignore_index=True)
        assert usage.failure_kind.isna().all()
        for (role, name), rows in usage.groupby(["purpose", "model_name"]):
            sent = [s for s in report.sent if s.stage == stage and s.purpose == role and s.model_name == name]
            where = f"{stage} {role} {name}"
            assert len(sent) == len(rows), where
            assert len({s.call_key for s in sent}) == rows.call_key.nunique(), where
            if not stage.startswith("j1_simulate@"):  # J1 keys scripted calls with its code fingerprint, not ours
                assert {s.call_key for s in sent} == set(rows.call_key), where
            assert sum(s.input_tokens for s in sent) == rows.prompt_tokens.sum(), where
            assert sum(s.output_tokens for s in sent) == rows.completion_tokens.sum(), where
    by_row = {(r.stage, r.role, r.model_name): r.calls for r in report.rows}
    assert sum(by_row.values()) == sum(len(pd.read_parquet(p)) for paths in tables.values() for p in paths)

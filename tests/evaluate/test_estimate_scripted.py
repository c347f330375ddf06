"""The estimate of a scripted configuration is what a run makes: in the session's finished small run (the `small`
fixture: every stage ran), for each stage of the scripted agents (oracle, null) and the shared stages that dvc.lock
records with a usage table, the estimate's calls per role and model, their distinct requests and their tokens
(scripted models count one token per character) equal the table's. The stage names are DVC's. The run's third agent
(`echo`, a real model on the test server) is left out of the estimate and of the comparison: the estimate of a real
model's calls follows stand-ins, not the model."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.estimate import estimate
from flows.kit.config import load_params
from flows.kit.paths import Paths
from tests.helpers import SmallRun

pytestmark = [pytest.mark.slow]
SCRIPTED = ["oracle", "null"]


def _usage_tables(project: Path, leave_out: set[str]) -> dict[str, list[Path]]:
    """Stage name -> its usage tables, from dvc.lock, less the stages of the agents in `leave_out`."""
    lock = yaml.safe_load((project / "dvc.lock").read_text(encoding="utf-8"))
    tables = {
        name: [project / o["path"] for o in stage.get("outs", []) if o["path"].endswith("usage.parquet")]
        for name, stage in lock["stages"].items()
        if not any(name.endswith(f"@{a}") or f"@{a}-" in name for a in leave_out)
    }
    return {name: paths for name, paths in tables.items() if paths}


def test_the_estimate_of_a_scripted_run_is_the_run(tmp_path, small: SmallRun):
    small.finished()
    project = small.project
    assert {name for name, a in small.agents.items() if a["model"].startswith("scripted/")} == set(SCRIPTED)
    params = load_params(project / "params.yaml")
    # read-only on the shared run: its data only; anything the estimate would write goes under tmp_path
    report = estimate(params, agents=SCRIPTED, paths=Paths(data=project / "data", reports=tmp_path, cache=tmp_path))
    tables = _usage_tables(project, set(small.agents) - set(SCRIPTED))
    assert any("@oracle" in name for name in tables) and any("@null" in name for name in tables)
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

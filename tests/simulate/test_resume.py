"""Resume: a simulation process killed mid-run (SIGKILL) and started again writes the tables of an uninterrupted
run, byte for byte, asks no model again for a dialogue that had finished, and repeats no journaled call.

The environment model is an OpenAI-compatible test server (with latency, so the run can be caught half way),
with the response cache off, so that only the run's journal can spare work; the agent is the scripted oracle.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from steps.j1.envs.registry import SCENARIOS, instance_from_row
from steps.simulate.engine import Engine
from tests.conftest import ROOT
from tests.fake_openai_server import FakeOpenAIServer
from tests.j1.envs.conftest import build, write_sources

pytestmark = pytest.mark.slow
COURT = ("CD", "DD", "CI", "CR")


def instances_file(root: Path) -> Path:
    """Instances of the two-party and court scenarios, built by the real flows from the fixture sources."""
    p = write_sources(root, sizes={code: None for code in COURT})
    build(p)
    return p.processed / "instances.parquet"


def project(root: Path, instances: Path, server_url: str) -> Path:
    """A project with those instances, and params whose environment model is the test server."""
    (root / "data/j1").mkdir(parents=True)
    shutil.copy(instances, root / "data/j1/instances.parquet")
    params = {
        "agents": {"oracle": {"model": "scripted/oracle"}},
        "environment": {"model": "hosted_vllm/test-model", "api_base": server_url},
        "llm": {"cache": False, "cache_dir": str(root / "cache"), "backoff_base_s": 0.01, "backoff_max_s": 0.02},
        "j1": {"simulate": {"scenarios": list(COURT), "concurrency": 2, "transcripts": 1}},
    }
    (root / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    return root


def start(root: Path, prefect_api: str) -> subprocess.Popen:
    """The stage in a process of its own, reporting to the session's Prefect server (a temporary server per start
    cost about 8 s of CPU each); a session of its own, so that the kill reaches whatever it started."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PREFECT_HOME": str(root / "prefect"), "PREFECT_API_URL": prefect_api}
    return subprocess.Popen(
        [sys.executable, "-m", "flows.run", "j1_simulate", "oracle"],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def journal_lines(root: Path) -> list[dict]:
    lines = []
    for path in (root / ".cache/journals/j1/oracle").glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            with contextlib.suppress(json.JSONDecodeError):
                lines.append(json.loads(line))
    return lines


def finish(proc: subprocess.Popen) -> str:
    out, _ = proc.communicate(timeout=600)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)  # whatever the flow left behind
    assert proc.returncode == 0, out[-3000:]
    return out


def _environment_prompts(root: Path, instance_id: str) -> set[str]:
    row = pd.read_parquet(root / "data/j1/instances.parquet").set_index("instance_id").loc[instance_id]
    instance = instance_from_row({**row.to_dict(), "instance_id": instance_id})
    scenario = SCENARIOS[instance.scenario]
    roles = [r for r, role in scenario.roles.items() if role.model == "environment" and r in instance.profiles]
    return {Engine(scenario, instance, None).messages(r)[0]["content"] for r in roles}


def test_a_killed_run_resumes_to_the_tables_of_an_uninterrupted_one(tmp_path, prefect_api):
    instances = instances_file(tmp_path / "build")
    with FakeOpenAIServer(reply=lambda body: "好的。", latency_s=0.1) as server:
        reference = project(tmp_path / "reference", instances, server.url)
        finish(start(reference, prefect_api))
        reference_requests = server.count

        server.reset_stats()
        interrupted = project(tmp_path / "interrupted", instances, server.url)
        proc = start(interrupted, prefect_api)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            done = [r for r in journal_lines(interrupted) if r["type"] == "done"]
            if done:
                break
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)  # a real kill: no cleanup, no flush beyond what was written
        proc.wait(timeout=60)
        assert proc.returncode == -signal.SIGKILL
        before = journal_lines(interrupted)
        finished = {r["instance_id"] for r in before if r["type"] == "done"}
        total = len(pd.read_parquet(interrupted / "data/j1/instances.parquet"))
        assert 1 <= len(finished) < total, "the kill must land mid-run"
        journaled_env = sum(r["type"] == "call" and r["role"] not in ("lawyer", "judge") for r in before)
        assert not (interrupted / "data/j1/runs/oracle/turns.parquet").exists()

        sent_before = server.count
        finish(start(interrupted, prefect_api))
        resumed = server.requests[sent_before:]

    assert len(resumed) == reference_requests - journaled_env  # every journaled call replayed, none re-asked
    asked = {r["messages"][0]["content"] for r in resumed}
    for instance_id in finished:
        assert not asked & _environment_prompts(interrupted, instance_id), instance_id  # not recomputed
    for name in ("turns.parquet", "dialogues.parquet", "run.json"):
        ours, theirs = interrupted / "data/j1/runs/oracle" / name, reference / "data/j1/runs/oracle" / name
        assert ours.read_bytes() == theirs.read_bytes(), name
    turns = pd.read_parquet(interrupted / "data/j1/runs/oracle/turns.parquet")
    assert not turns.duplicated(["instance_id", "turn_index"]).any()
    assert set(turns.instance_id) == set(pd.read_parquet(reference / "data/j1/runs/oracle/turns.parquet").instance_id)

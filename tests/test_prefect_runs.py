"""Flow runs as a real Prefect server holds them (flows/kit/monitor.py): tagged with the project, the commit and the
run session; a run whose process was killed is marked Crashed on the next start, a run whose process lives is not;
report runs carry the agents they report on."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.helpers import one_source_project

# slow: runs stages end to end (handed out before the quick modules); prefect_on: what Prefect records is under test
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("prefect_on")]

SESSION = "5e551011abcdef0123456789"

# run through the stage runner (flows/kit/stage.py) as every stage is: `killed` dies by SIGKILL inside its flow run,
# `sleeper` writes `ready` and sleeps
FLOWS = """
import os, signal, sys, time
from pathlib import Path
from flows.kit.stage import run_stage, stage_flow

def killed() -> str:
    os.kill(os.getpid(), signal.SIGKILL)
    return "never"

def sleeper() -> str:
    Path("ready").write_text("yes")
    time.sleep(300)
    return "woke"

name = sys.argv[1]
sys.exit(run_stage(name, stage_flow({"killed": killed, "sleeper": sleeper}[name])))
"""


@pytest.fixture(scope="module")
def prefect_api(tmp_path_factory) -> Iterator[str]:
    """A server of this module's own: the crash check reads every Running run of the project."""
    from tests.helpers import prefect_server

    with prefect_server(tmp_path_factory.mktemp("runs-prefect")) as url:
        yield url


@pytest.fixture(scope="module")
def project(tmp_path_factory, mirror) -> Path:
    """A git checkout with one small source (the ingest stage's) and the two test flows."""
    root = tmp_path_factory.mktemp("tagged") / "jurisflow-clone"
    one_source_project(root, mirror)
    (root / "flows_under_test.py").write_text(FLOWS, encoding="utf-8")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=root, check=True)
    return root


def _env(api: str, **extra: str) -> dict[str, str]:
    env = {**os.environ, "PREFECT_API_URL": api, "PYTHONPATH": str(ROOT), **extra}
    env.pop("JURISFLOW_MIRROR", None)
    env.pop("JURISFLOW_RUN_SESSION", None)
    return {**env, **extra}


def _run(project: Path, api: str, *argv: str, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *argv], cwd=project, env=_env(api, **extra), capture_output=True, text=True, timeout=600
    )


def _runs(api: str) -> dict[str, list]:
    """Every flow run on the server by name (newest first)."""
    from prefect.client.orchestration import PrefectClient
    from prefect.client.schemas.sorting import FlowRunSort

    async def read() -> dict[str, list]:
        async with PrefectClient(api=api) as client:
            runs = await client.read_flow_runs(sort=FlowRunSort.EXPECTED_START_TIME_DESC)
        out: dict[str, list] = {}
        for run in runs:
            out.setdefault(run.name, []).append(run)
        return out

    return asyncio.run(read())


def test_a_stage_run_is_tagged_with_its_project_commit_and_run_session(project, prefect_api):
    done = _run(project, prefect_api, "-m", "flows.run", "ingest", JURISFLOW_RUN_SESSION=SESSION)
    assert done.returncode == 0, done.stderr
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=project, capture_output=True, text=True, check=True
    ).stdout.strip()
    [run] = _runs(prefect_api)["ingest"]
    assert run.state.type.value == "COMPLETED"
    assert {"project:jurisflow-clone", f"commit:{commit}", f"session:{SESSION[:12]}", "stage:ingest"} <= set(run.tags)


def test_a_killed_run_is_marked_crashed_on_the_next_start_and_a_live_one_is_not(project, prefect_api):
    sleeper = subprocess.Popen(
        [sys.executable, "flows_under_test.py", "sleeper"],
        cwd=project,
        env=_env(prefect_api),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 300
        while not (project / "ready").exists():
            assert sleeper.poll() is None and time.monotonic() < deadline
            time.sleep(0.2)
        killed = _run(project, prefect_api, "flows_under_test.py", "killed")
        assert killed.returncode == -9
        [left] = _runs(prefect_api)["killed"]
        assert left.state.type.value == "RUNNING" and left.infrastructure_pid  # what a killed stage leaves behind

        next_start = _run(project, prefect_api, "-m", "flows.run", "ingest")
        assert next_start.returncode == 0, next_start.stderr
        assert "marked Crashed (their process is gone): killed" in next_start.stderr.replace("\n", " ")
        runs = _runs(prefect_api)
        [crashed] = runs["killed"]
        assert crashed.state.type.value == "CRASHED" and "ended without reporting" in (crashed.state.message or "")
        [alive] = runs["sleeper"]
        assert alive.state.type.value == "RUNNING"  # its process runs: not the check's to end
    finally:
        sleeper.terminate()
        sleeper.wait(timeout=60)


def test_report_runs_are_tagged_with_the_agents_they_report_on(tmp_path):
    from flows.kit.config import load_params
    from flows.kit.monitor import describe

    path = tmp_path / "params.yaml"
    path.write_text(
        "agents:\n  oracle:\n    model: scripted/oracle\n  probe:\n    model: scripted/null\n    benchmarks: [ucl]\n",
        encoding="utf-8",
    )
    params = load_params(path)
    assert {"agent:oracle", "agent:probe"} <= set(describe("ucl_report", params)[1])
    lawbench = [t for t in describe("lawbench_report", params)[1] if t.startswith("agent:")]
    assert lawbench == ["agent:oracle"]  # probe takes no part in LawBench
    assert {"agent:oracle", "agent:probe"} <= set(describe("html_report", params)[1])
    assert not [t for t in describe("ingest", params)[1] if t.startswith("agent:")]

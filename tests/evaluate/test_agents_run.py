"""`jurisflow agents run` in project copies: two agents' stages at once in one workspace (dvc.lock and the reports as
one after the other would leave them), and on a Prefect work pool whose worker runs in another clone that shares the
DVC remote: the coordinator restores the agents' stages from the pushed run cache instead of running them."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from dvc.repo import Repo

from tests.helpers import SMALL, copy_project, repro

pytestmark = [pytest.mark.slow, pytest.mark.e2e, pytest.mark.timeout(3600)]
BIN = Path(sys.executable).parent
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
AGENTS = {a: {"model": "scripted/oracle", "benchmarks": ["lawbench"], "limit": 2} for a in ("a1", "a2")}
STAGES = [f"lawbench_predict@{a}-{s}" for a in AGENTS for s in ("zero_shot", "one_shot")]


def sh(args: list, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=2400)
    assert done.returncode == 0, f"{args}: {done.stdout[-3000:]} {done.stderr[-3000:]}"
    return done


@pytest.fixture
def env(mirror, prefect_api) -> dict:
    return {
        **os.environ,
        "JURISFLOW_MIRROR": str(mirror),
        "PREFECT_API_URL": prefect_api,
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
    }


def locked(project: Path) -> dict:
    return yaml.safe_load((project / "dvc.lock").read_text(encoding="utf-8"))["stages"]


def test_two_agents_at_once_leave_what_one_after_the_other_leaves(tmp_path, env, base):
    together, apart = tmp_path / "together", tmp_path / "apart"
    # Both start from the session's base stages (ingest and LawBench's rescoring, deterministic: their dvc.lock entries
    # are the same either way). `together` has lost ingest's outputs, from the workspace and from DVC's cache and run
    # cache (whence `dvc repro` would restore them instead of running the stage), so its shared stage runs first, on
    # its own; it writes the same bytes, so LawBench's rescoring, which reads them, stays up to date.
    copy_project(together, {**SMALL, "agents": AGENTS}, replace=("agents",), base=base)
    with Repo(together) as dvc:
        for out in locked(together)["ingest"]["outs"]:
            (together / out["path"]).unlink()
            Path(dvc.cache.local.oid_to_path(out["md5"])).unlink()
        shutil.rmtree(dvc.stage_cache.cache_dir)
    copy_project(apart, {**SMALL, "agents": AGENTS}, replace=("agents",), base=base)
    done = sh([BIN / "jurisflow", "agents", "run", "--agents", "a1,a2", "--jobs", "2"], together, env)
    ran = re.findall(r"^\[(\w+)\] Running stage '([^']+)'", done.stdout, flags=re.M)
    assert sorted(s for label, s in ran if label in AGENTS) == sorted(STAGES)  # each agent's in its own process
    assert {s for label, s in ran if label == "shared"} == {"ingest"}
    assert "lawbench_score" not in {s for _, s in ran}  # ingest rewrote the bytes it reads
    assert "up to date" in sh([BIN / "dvc", "status", "lawbench_report"], together, env).stdout
    # one after the other: one `dvc repro` runs its stages one at a time
    done = repro([*STAGES, "lawbench_report"], apart, env, timeout=2400)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.count("Running stage") == len(STAGES) + 1, done.stdout[-3000:]
    assert locked(together) == locked(apart)
    for report in ("lawbench.csv", "lawbench_zero_shot.md", "lawbench_one_shot.md"):
        assert (together / "reports" / report).read_bytes() == (apart / "reports" / report).read_bytes(), report


def test_a_worker_in_another_clone_runs_the_agents_and_the_coordinator_restores_them(tmp_path, env, base):
    coordinator, worker_clone, remote = tmp_path / "coordinator", tmp_path / "worker", tmp_path / "remote"
    # from the session's base stages: the shared stage (ingest) is up to date; the coordinator still pushes it and
    # the worker pulls it
    copy_project(coordinator, {**SMALL, "agents": AGENTS}, replace=("agents",), base=base)
    sh(["git", "add", "-A"], coordinator, env)
    sh([*GIT, "commit", "-qm", "agents"], coordinator, env)
    sh(["git", "clone", "-q", coordinator, worker_clone], tmp_path, env)
    for clone in (coordinator, worker_clone):
        sh([BIN / "dvc", "remote", "modify", "--local", "local", "url", remote], clone, env)
    pool = f"test-{os.getpid()}"
    assert (
        f"agent-stages/{pool}" in sh([BIN / "jurisflow", "agents", "deploy", "--pool", pool], coordinator, env).stdout
    )
    log = (tmp_path / "worker.log").open("w")
    worker = subprocess.Popen(
        [BIN / "jurisflow", "agents", "worker", "--pool", pool, "--limit", "2"],
        cwd=worker_clone,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        done = sh([BIN / "jurisflow", "agents", "run", "--agents", "a1,a2", "--pool", pool], coordinator, env)
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(60)
        with contextlib.suppress(ProcessLookupError):  # `prefect worker start` may outlive the SIGTERM: not here
            os.killpg(worker.pid, signal.SIGKILL)
        log.close()
    worker_log = (tmp_path / "worker.log").read_text()
    for stage in STAGES:  # run by the worker, restored here
        assert f"Running stage '{stage}'" in worker_log, worker_log[-3000:]
        assert f"Stage '{stage}' is cached - skipping run" in done.stdout, done.stdout[-3000:]
        assert f"Running stage '{stage}'" not in done.stdout
    assert (worker_clone / "data/lawbench/runs/a1/zero_shot/call_cache.parquet").is_file()
    assert {s: locked(coordinator)[s]["outs"] for s in STAGES} == {s: locked(worker_clone)[s]["outs"] for s in STAGES}
    status = sh([BIN / "dvc", "status", "lawbench_report"], coordinator, env).stdout
    assert "up to date" in status
    csv = (coordinator / "reports/lawbench.csv").read_text(encoding="utf-8")
    assert ",a1," in csv and ",a2," in csv

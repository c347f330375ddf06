"""One process per stage: after `kill -9` of the `dvc` parent, the stage it started runs on as an orphan, and a new
`dvc repro` refuses that stage in one line naming the orphan's pid instead of running it a second time beside it;
once the orphan has ended the stage runs (issue 35, item 13). Real `dvc`, the real `lawbench_predict` stage, the test
server over HTTP answering slowly."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest
import yaml

from flows.kit.stage_lock import StageRunning, lock_path, stage_lock
from tests.conftest import ROOT
from tests.fake_openai_server import FakeOpenAIServer, echo_reply
from tests.helpers import write_lawbench_interim

BIN = Path(sys.executable).parent
CALLS = 20  # LawBench limit 1: one item for each of the 20 tasks
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]


@pytest.fixture(scope="module")
def interim(mirror, manifest, tmp_path_factory) -> Path:
    return write_lawbench_interim(mirror, manifest, tmp_path_factory.mktemp("interim"))


def project(root: Path, interim: Path, url: str) -> Path:
    """A DVC project with one stage, `lawbench_predict` of agent `a` on the test server, two calls at a time."""
    shutil.copytree(interim, root / "data" / "interim")
    shutil.copy(ROOT / "prefect.toml", root / "prefect.toml")
    params = {
        "agents": {"a": {"model": "openai/test-model", "api_base": url}},
        "llm": {"cache_dir": ".cache/llm", "max_attempts": 1, "concurrency": 2, "timeout_s": 600},
        "lawbench": {"limit": 1},
    }
    (root / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    stage = {"cmd": "python -m flows.run lawbench_predict a zero_shot", "deps": ["params.yaml"]}
    stage["outs"] = ["data/lawbench/runs/a/zero_shot"]
    (root / "dvc.yaml").write_text(yaml.safe_dump({"stages": {"lawbench_predict": stage}}), encoding="utf-8")
    (root / ".gitignore").write_text("/.cache/\n/data/interim/\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run([BIN / "dvc", "init", "-q"], cwd=root, check=True, env=_env(""))
    return root


def _env(prefect_api: str) -> dict[str, str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(ROOT)}
    env |= {"PREFECT_API_URL": prefect_api, "LOCAL_LLM_KEY": "x", "DVC_NO_ANALYTICS": "1"}
    for name in ("DVC_ROOT", "DVC_STAGE"):
        env.pop(name, None)
    return env


def stage_processes(root: Path) -> list[psutil.Process]:
    """The running Python processes of the stage in project `root` (not the shell `dvc` starts it with: `sh -c` under
    dash, CI's `/bin/sh` when `SHELL` is unset, stays as the stage's parent instead of exec-ing it)."""
    found = []
    for p in psutil.process_iter(["cmdline", "cwd"]):
        argv = p.info["cmdline"] or []
        if p.info["cwd"] == str(root) and argv[1:4] == ["-m", "flows.run", "lawbench_predict"]:
            found.append(p)
    return found


def until(check, timeout: float = 120.0):
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)
    return found


def test_a_rerun_refuses_a_stage_whose_orphan_still_runs(tmp_path, interim, prefect_api):
    gate = threading.Event()  # the server holds its first answer (and so every request) until the test opens it

    def held_reply(body: dict) -> str:
        gate.wait(timeout=600)
        return echo_reply(body)

    with FakeOpenAIServer(reply=held_reply) as server:
        root = project(tmp_path / "p", interim, server.url)
        try:
            _kill_dvc_then_rerun(root, server, gate, _env(prefect_api))
        finally:
            gate.set()
            for p in stage_processes(root):  # whatever a failed check left running
                with contextlib.suppress(psutil.Error):
                    p.kill()


def _kill_dvc_then_rerun(root: Path, server: FakeOpenAIServer, gate: threading.Event, env: dict[str, str]) -> None:
    first = subprocess.Popen(
        [BIN / "dvc", "repro"], cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        until(lambda: server.count >= 1)  # the stage is sending its calls
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
    (orphan,) = stage_processes(root)  # the stage outlived its `dvc`

    second = subprocess.Popen(
        [BIN / "dvc", "repro"], cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:  # refused, it ends at once; a second stage beside the orphan would wait for the held server instead
        output = second.communicate(timeout=180)[0]
    finally:
        second.kill()
    assert [p.pid for p in stage_processes(root)] == [orphan.pid]  # never two at once
    assert second.returncode != 0 and orphan.is_running() and server.count == 1
    refusal = [line for line in output.splitlines() if "already running" in line]
    assert refusal == [
        f"lawbench_predict failed: stage lawbench_predict is already running in this project (pid {orphan.pid}, "
        "e.g. left running by a killed `dvc`): wait for it to end or stop it, then rerun"
    ], output

    gate.set()
    orphan.wait(timeout=300)
    assert server.count == CALLS  # the orphan sent each call once; the refused rerun sent none
    third = subprocess.run([BIN / "dvc", "repro"], cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert third.returncode == 0, third.stdout + third.stderr
    assert server.count == CALLS  # every answer the orphan got is in the response cache


def test_the_lock_is_the_stage_processs_and_only_under_dvc(tmp_path):
    env = {"DVC_ROOT": str(tmp_path), "DVC_STAGE": "x@a-b"}
    with stage_lock(env) as held:
        assert held == lock_path(tmp_path, "x@a-b") and held.read_text() == f"{os.getpid()}\n"
        holder = subprocess.run(
            [sys.executable, "-c", "from flows.kit.stage_lock import stage_lock\nwith stage_lock(): pass"],
            env={**os.environ, **env, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
        )
        assert (
            holder.returncode == 1
            and f"StageRunning: stage x@a-b is already running in this project (pid {os.getpid()}," in holder.stderr
        )
    with stage_lock(env):  # released: taken again
        pass
    with stage_lock({}) as none:  # outside DVC: no lock
        assert none is None
    with pytest.raises(StageRunning), stage_lock(env), stage_lock(env):  # a second open of it, even here: refused
        pass

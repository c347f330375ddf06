"""The whole pipeline through a DVC remote: a fresh clone pulls, `dvc repro` has nothing to do, and `dvc repro -f` of
one stage of every model-calling stage definition (the echo agent's where there is one) rewrites its outputs byte for
byte with zero model calls (requests at the test server for a real agent; the usage log's cache hits for the scripted
ones, whose answers the pulled shards give since the clone has no response cache of its own). The first run is the
session's small run (`small`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from flows.kit.models import read_usage_log
from tests.helpers import SmallRun, repro

pytestmark = [pytest.mark.slow, pytest.mark.timeout(4800)]
BIN = Path(sys.executable).parent
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]


def sh(args: list, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=2400)
    assert done.returncode == 0, f"{args}: {done.stdout[-3000:]} {done.stderr[-3000:]}"
    return done


def model_stages(project: Path) -> dict[str, list[str]]:
    """Every stage of dvc.lock that writes a response-cache shard, with its usage tables."""
    lock = yaml.safe_load((project / "dvc.lock").read_text(encoding="utf-8"))["stages"]
    return {
        name: [o["path"] for o in stage["outs"] if o["path"].endswith("usage.parquet")]
        for name, stage in lock.items()
        if any(o["path"].endswith("call_cache.parquet") for o in stage.get("outs", []))
    }


def one_of_each(stages: list[str]) -> list[str]:
    """One stage of each model-calling stage definition: its echo agent's (the real agent, on the test server) where
    it has one, else its oracle's, else the first. The agents of one definition run the same code on other rows."""
    by_definition: dict[str, list[str]] = {}
    for name in stages:
        by_definition.setdefault(name.split("@")[0], []).append(name)
    return [min(names, key=_preference) for names in by_definition.values()]


def _preference(stage: str) -> int:
    agent = stage.partition("@")[2]
    return 0 if agent.startswith("echo") else 1 if agent.startswith("oracle") else 2


def test_a_fresh_clone_pulls_then_rebuilds_every_report_without_a_model_call(tmp_path, small: SmallRun):
    env = small.env
    remote, first, clone = tmp_path / "remote", tmp_path / "first", tmp_path / "clone"
    server, sent = small.server, small.server.count
    assert small.sent > 0  # the session's run sent the echo agent's calls to the test server
    small.copy_to(first)  # the finished run (oracle, null, and echo on the test server for LawBench and UCL)
    sh([BIN / "dvc", "remote", "modify", "--local", "local", "url", remote], first, env)
    sh([BIN / "dvc", "push"], first, env)
    sh(["git", "add", "-A"], first, env)
    sh([*GIT, "commit", "-qm", "run"], first, env)

    sh(["git", "clone", "-q", first, clone], tmp_path, env)
    sh([BIN / "dvc", "remote", "modify", "--local", "local", "url", remote], clone, env)
    sh([BIN / "dvc", "pull"], clone, env)
    assert "up to date" in sh([BIN / "dvc", "status"], clone, env).stdout
    assert "Running stage" not in sh([BIN / "dvc", "repro"], clone, env).stdout

    every = model_stages(clone)
    stages = {name: every[name] for name in one_of_each(list(every))}
    expected = {"lawbench_predict@echo-zero_shot", "ucl_simulate@echo", "j1_simulate@oracle", "j1_extract"}
    assert expected <= set(stages) and len(stages) < len(every)
    assert {name.split("@")[0] for name in stages} == {name.split("@")[0] for name in every}
    # one stage of every model-calling definition, and only those (the others call no model; what they read comes out
    # the same bytes)
    forced = repro(["-f", "--single-item", *stages], clone, env, timeout=2400)
    assert forced.returncode == 0, forced.stdout[-3000:] + forced.stderr[-3000:]
    assert all(f"Running stage '{name}'" in forced.stdout for name in stages)
    assert server.count == sent  # the real agent: no request
    replayed = 0
    for name, tables in stages.items():  # the scripted models: every call answered without the model
        for table in tables:
            logged = read_usage_log(clone / ".cache/llm", clone / table, last=True)
            if name == "j1_extract":  # the scripted extractor is recomputed on purpose (steps/j1/extract/llm_fields.py)
                assert (logged.model == "scripted/persona").all()
                continue
            assert logged.cache_hit.all(), f"{name}: {table}: {(~logged.cache_hit).sum()} calls sent"
            replayed += len(logged)
    assert replayed > 1000
    # every report, output and dvc.lock entry is the same bytes: git sees nothing to commit, DVC nothing to do
    assert sh(["git", "status", "--porcelain"], clone, env).stdout == ""
    assert "up to date" in sh([BIN / "dvc", "status"], clone, env).stdout

"""A first evaluation, as a new user makes it (issue 37, "Done when"): a fresh copy of the project (only the stages
that call no model have run) evaluates a model on an OpenAI-compatible server that reports a small context.

- `eval --dry-run` reads the server's context and names the items whose prompts would not fit; it calls no model
  and writes nothing;
- the real `eval` completes every benchmark, building first the missing outputs of the scripted agent that every
  report compares with (offline, as in a fresh clone): the agent's dialogues that outgrow the context end
  `context_exceeded` (the model's limit, not a failed stage), the HTML report is rebuilt, and no output is left for
  `git add`;
- a second `eval` with the server down fails fast with one line, and loses nothing: every output and `dvc status`
  are as the first eval left them.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from flows.kit.config import BENCHMARKS
from tests.fake_openai_server import FakeOpenAIServer
from tests.helpers import copy_project, run_env

pytestmark = [pytest.mark.slow, pytest.mark.e2e, pytest.mark.timeout(3600)]
BIN = Path(sys.executable).parent
CONTEXT = 6000  # tokens per request (the test server counts one per character): LawBench fits, dialogues do not
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 3000) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _eval(project: Path, env: dict[str, str], url: str, *extra: str) -> subprocess.CompletedProcess:
    args = [BIN / "jurisflow", "eval", "--agent", "tight", "--model", "openai/test-model", "--api-base", url]
    return _run([*args, "--limit", "1", *extra], project, env)


def _verbose(body: dict) -> str:
    """A model that says much and ends nothing: its dialogues outgrow a small context within a few turns."""
    return "我认为本案需要进一步核实事实。" * 60  # 900 characters, 900 tokens on the test server


def _outputs(project: Path) -> dict[str, bytes]:
    """Every run output and report of the project, by path."""
    files = [*project.glob("data/*/runs/**/*"), *project.glob("reports/**/*"), project / "dvc.lock"]
    return {str(p.relative_to(project)): p.read_bytes() for p in sorted(files) if p.is_file()}


@pytest.fixture
def project(tmp_path, base, mirror, prefect_api) -> Path:
    """A copy of the base project, committed: what a user has after cloning and the data stages. As in a clone, a
    scripted agent is listed whose outputs do not exist (DVC outputs are not in git): every report reads its
    stages, which `eval` builds offline (here on one unit each, to keep the test short)."""
    dest = tmp_path / "project"
    copy_project(dest, {"agents": {"null": {"model": "scripted/null", "limit": 1}}}, replace=("agents",), base=base)
    env = run_env(mirror, prefect_api)
    assert _run(["git", "add", "-A"], dest, env).returncode == 0
    assert _run([*GIT, "commit", "-qm", "fresh"], dest, env).returncode == 0
    return dest


def test_a_first_eval_on_a_small_context(project, mirror, prefect_api):
    env = run_env(mirror, prefect_api)
    with FakeOpenAIServer(reply=_verbose, context_size=CONTEXT, props={"total_slots": 2}) as server:
        dry = _eval(project, env, server.url, "--dry-run")
        assert dry.returncode == 0, dry.stdout[-3000:] + dry.stderr[-3000:]
        said = dry.stdout + dry.stderr
        assert f"context {CONTEXT:,} tokens" in said and "2 parallel slots" in said
        assert "would overflow" in said and "j1_simulate@tight" in said, said[-4000:]
        assert server.count == 0 and _run(["git", "status", "--porcelain"], project, env).stdout == ""

        done = _eval(project, env, server.url)
        said = done.stdout + done.stderr
        assert done.returncode == 0, said[-5000:]
        assert server.faults_injected["context"] > 0  # the server did refuse requests too long for it
    for benchmark in BENCHMARKS:
        assert f"  {benchmark} " in said and "done, report refreshed" in said, benchmark
        # the scripted agent's stages, missing as in a fresh clone, were built offline before the report
        assert f"{benchmark}_report: the scripted agents' stages it reads are not up to date" in said, benchmark
    assert "null" in (project / "reports/ucl.md").read_text(encoding="utf-8")
    ended = pd.concat(
        [pd.read_parquet(project / f"data/{b}/runs/tight/dialogues.parquet").ended_by for b in ("j1", "ucl", "mile")]
    )
    assert (ended == "context_exceeded").any(), ended.value_counts()  # the agent's limit, and no stage failed
    assert "tight" in (project / "reports/html/lawbench.html").read_text(encoding="utf-8")  # the HTML rebuilt
    status = _run(["git", "status", "--porcelain", "--untracked-files=all"], project, env).stdout
    new = [line[3:] for line in status.splitlines() if line.startswith("??")]
    # only reports kept in git are new (J1's transcripts: commit them with dvc.lock; here the scripted agent's too,
    # since its limit differs from the committed run's); never a run output
    assert any(path.startswith("reports/transcripts/tight/") for path in new), status
    assert all(path.startswith("reports/transcripts/") for path in new), status
    dvc = _run([BIN / "dvc", "status"], project, env).stdout
    stale = {line.rstrip(":") for line in dvc.splitlines() if line and not line[0].isspace() and line.endswith(":")}
    assert stale <= {"data_report", "judges_report"}, dvc  # eval leaves the data card and judge audit to `make run`

    kept = _outputs(project)
    started = time.monotonic()
    down = _eval(project, env, server.url)  # the server has stopped
    took = time.monotonic() - started
    assert down.returncode != 0 and took < 60, down.stderr[-2000:]
    errors = [line for line in down.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and server.url in errors[0], down.stderr[-2000:]
    assert "Running stage" not in down.stdout
    assert _outputs(project) == kept
    assert _run([BIN / "dvc", "status"], project, env).stdout == dvc

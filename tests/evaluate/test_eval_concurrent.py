"""`jurisflow eval` with other evals and other agents around (issue 35, items 5 and 11), end to end in a copy of the
session's base project (the stages that call no model already run), on LawBench with a limit of 1:

- two evals started at once, as two processes: both agents end up in params.yaml, both run, and the report lists both
  (before: one agent's entry was lost, or the second `dvc repro` failed on DVC's locks);
- an eval of agent A while agent B's stages are stale (its parameters changed): B's stage is not run (no request
  reaches B's server), the eval names it and the command that runs it, and leaves the report unrefreshed (exit 1).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.fake_openai_server import FakeOpenAIServer
from tests.helpers import copy_project, run_env

pytestmark = [pytest.mark.slow, pytest.mark.e2e, pytest.mark.timeout(2400)]
BIN = Path(sys.executable).parent
SETTINGS = ("zero_shot", "one_shot")


def _eval(project: Path, env: dict[str, str], agent: str, *args: str) -> subprocess.Popen:
    """`jurisflow eval` of `agent` on LawBench with a limit of 1, started (stdout and stderr as one text)."""
    argv = [str(BIN / "jurisflow"), "eval", "--agent", agent, "--benchmarks", "lawbench", "--limit", "1", *args]
    return subprocess.Popen(argv, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _status(project: Path, env: dict[str, str], *stages: str) -> str:
    args = [str(BIN / "dvc"), "status", *stages]
    return subprocess.run(args, cwd=project, env=env, capture_output=True, text=True, check=True).stdout


def _stages(agent: str) -> list[str]:
    return [f"lawbench_predict@{agent}-{s}" for s in SETTINGS]


@pytest.fixture(scope="module")
def server():
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def project(tmp_path, base) -> Path:
    """A copy of the base project with no agent at all."""
    dest = tmp_path / "project"
    copy_project(dest, {"agents": {}}, replace=("agents",), base=base)
    return dest


def test_two_evals_at_once_both_register_and_run(project, mirror, prefect_api, server):
    env = run_env(mirror, prefect_api)
    first = _eval(project, env, "alpha", "--model", "scripted/oracle")
    second = _eval(project, env, "beta", "--model", "openai/test-model", "--api-base", server.url)
    outputs = [proc.communicate(timeout=2000)[0] for proc in (first, second)]
    for proc, out in zip((first, second), outputs, strict=True):
        assert proc.returncode == 0, out[-3000:]
    waited = [out for out in outputs if "waiting for the other `jurisflow eval` in this project (pid " in out]
    assert len(waited) == 1  # the second to arrive waited for the first, then ran

    agents = yaml.safe_load((project / "params.yaml").read_text(encoding="utf-8"))["agents"]
    assert set(agents) == {"alpha", "beta"}
    assert "Data and pipelines are up to date" in _status(project, env, *_stages("alpha"), *_stages("beta"))
    assert "Data and pipelines are up to date" in _status(project, env, "lawbench_report")
    csv = pd.read_csv(project / "reports/lawbench.csv", keep_default_na=False, na_values=[""])
    assert {"alpha", "beta"} <= set(csv[csv.source == "ours"].agent)
    assert server.count > 0  # beta's calls went over HTTP


def test_eval_never_runs_another_agents_stale_stage(project, mirror, prefect_api, server):
    env = run_env(mirror, prefect_api)
    beta = _eval(project, env, "beta", "--model", "openai/test-model", "--api-base", server.url)
    out = beta.communicate(timeout=2000)[0]
    assert beta.returncode == 0, out[-3000:]
    # beta's parameters change: its stages are stale, and running them would call its server again
    path = project / "params.yaml"
    params = yaml.safe_load(path.read_text(encoding="utf-8"))
    params["agents"]["beta"]["decoding"] = {"temperature": 0.5}
    path.write_text(yaml.safe_dump(params, allow_unicode=True, sort_keys=False), encoding="utf-8")
    assert "changed" in _status(project, env, *_stages("beta"))
    sent = server.count

    alpha = _eval(project, env, "alpha", "--model", "scripted/oracle")
    out = alpha.communicate(timeout=2000)[0]
    assert alpha.returncode == 1, out[-3000:]
    assert server.count == sent  # no request for beta
    ran = re.findall(r"Running stage '([^']+)'", out)
    assert sorted(ran) == sorted(_stages("alpha")), out[-3000:]
    # the stages, said once before any runs: alpha's own and the shared ones, never beta's
    plan = [line for line in out.splitlines() if line.startswith("agents.alpha written to params.yaml; eval alpha: ")]
    assert len(plan) == 1 and out.index(plan[0]) < out.index("Running stage")
    assert all(s in plan[0] for s in _stages("alpha")) and "@beta" not in plan[0]
    refused = [line for line in out.splitlines() if line.startswith("lawbench_report not refreshed: ")]
    assert len(refused) == 1 and all(s in refused[0] for s in _stages("beta")), out[-3000:]
    assert "`dvc repro lawbench_report`" in refused[0]
    assert "no report refreshed" in out
    assert "changed" in _status(project, env, *_stages("beta"))
    assert "Data and pipelines are up to date" in _status(project, env, *_stages("alpha"))

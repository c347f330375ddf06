"""The one whole-pipeline run of a test session (the `small` fixture: `dvc repro` of every stage on SMALL samples,
with scripted agents and one real agent on a test server) and what is checked on it. Every other test is a unit or
stage test.

- `dvc repro` on a copy of the project: runs every stage, leaves `dvc status` clean, then does no work.

- The estimate of a scripted configuration is what a run makes: for each stage of the scripted agent (oracle) and
the shared stages that dvc.lock records with a usage table, the estimate's calls per role and model, their distinct
requests and their tokens (scripted models count one token per character) equal the table's. The stage names are DVC's.
The run's third agent (`echo`, a real model on the test server) is left out of the estimate and of the comparison: the
estimate of a real model's calls follows stand-ins, not the model.

- `jurisflow eval` end to end in a copy of the session's finished small run (e2e: `make test-e2e`; `make test` covers
eval on the new-benchmark test and its options in tests/evaluate): the new agent's LawBench stages, the report and the
HTML report run, the other agents' stages stay up to date, and the printed numbers are the report's CSV twin's.

- The whole pipeline through a DVC remote (e2e; `make test` covers one stage's replay in tests/test_remote.py): a
fresh clone pulls, `dvc repro` has nothing to do, and `dvc repro -f` of
the real agent's model-calling stages and a scripted dialogue stage rewrites their outputs byte for byte with zero
model calls (requests at the test server for a real agent; the usage log's cache hits for the scripted
ones, whose answers the pulled shards give since the clone has no response cache of its own).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.estimate import estimate
from flows.kit.config import load_params
from flows.kit.models import read_usage_log
from flows.kit.paths import Paths
from steps.reports.html.pages import PAGES
from tests.conftest import ROOT
from tests.helpers import SmallRun, repro
from tests.html_data import DIALOGUE_PAGES, index_counts, page_dialogues

pytestmark = [pytest.mark.slow, pytest.mark.timeout(4800)]
BIN = Path(sys.executable).parent


# ------------------------------------------------------------------ the run, a no-op rerun, four forced stages
def _dvc(args: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    dvc = Path(sys.executable).parent / "dvc"
    return subprocess.run([str(dvc), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)


def test_repro_then_status_clean_then_nothing_to_do(small: SmallRun):
    project, env = small.project, small.env
    small.finished()
    assert small.repro.stdout.count("Running stage") > 20
    report = (project / "reports/data.md").read_text(encoding="utf-8")
    assert "| mile | 693 |" in report and "| judgments_civil | 808 |" in report
    committed = (ROOT / "reports/data.md").read_text(encoding="utf-8")
    # The data sections must match the committed card; the model usage table depends on the sample sizes.
    assert report.split("## Model usage")[0] == committed.split("## Model usage")[0], "reports/data.md is stale"
    assert "## Model usage" in report and "scripted/oracle" in report.split("## Model usage")[1]
    pages = [f"{p}.html" for p in PAGES]
    for name in (
        "lawbench_zero_shot.md",
        "lawbench_one_shot.md",
        "lawbench.csv",
        "extraction.md",
        "plawbench.md",
        "plawbench.csv",
        "plawbench_rubrics.md",
        "ucl.md",
        "ucl.csv",
        "mile.md",
        "mile.csv",
        "j1.md",
        "j1.csv",
        *(f"html/{p}" for p in pages),
    ):
        assert (project / "reports" / name).is_file(), name
    # The HTML report (a DVC output, not in git): every page is small on these samples, and every dialogue the
    # index counts is embedded in its page as JSON that parses
    html = project / "reports/html"
    assert {p.name: p.stat().st_size < 2**20 for p in html.glob("*.html")} == dict.fromkeys(pages, True)
    counts = index_counts((html / "index.html").read_text(encoding="utf-8"))
    for bench in DIALOGUE_PAGES:
        records = page_dialogues((html / f"{bench}.html").read_text(encoding="utf-8"))
        agents = {name for name, agent in small.agents.items() if bench in agent.get("benchmarks", [bench])}
        assert len(records) == counts[bench][1] > 0 and {r["agent"] for r in records} == agents, bench
    status = _dvc(["status"], project, env)
    assert status.returncode == 0 and "up to date" in status.stdout, status.stdout
    second = _dvc(["repro"], project, env)
    assert second.returncode == 0
    assert "Running stage" not in second.stdout and "didn't change, skipping" in second.stdout
    # J1-EVAL: the judge and report stages forced to run again on the warm response cache write the same bytes
    j1 = [project / "data/j1/runs/oracle/scores.parquet"]
    j1 += [project / "reports/j1.md", project / "reports/j1.csv"]
    j1 += sorted((project / "reports/html").glob("*.html"))  # the HTML report is rebuilt byte for byte
    before = [p.read_bytes() for p in j1]
    forced = repro(["--force", "--single-item", "j1_judge@oracle", "j1_report", "html_report"], project, env)
    assert forced.returncode == 0 and forced.stdout.count("Running stage") == 3, forced.stdout[-3000:]
    assert [p.read_bytes() for p in j1] == before


# ------------------------------------------------------------------ the estimate of the scripted agents is the run
SCRIPTED = ["oracle"]


def _usage_tables(project: Path, agents: list[str]) -> dict[str, list[Path]]:
    """Stage name -> its usage tables, from dvc.lock, for the shared stages and those of `agents` (the lock copied with
    the project also names the committed run's agents: their stages did not run here)."""
    lock = yaml.safe_load((project / "dvc.lock").read_text(encoding="utf-8"))
    tables = {
        name: [project / o["path"] for o in stage.get("outs", []) if o["path"].endswith("usage.parquet")]
        for name, stage in lock["stages"].items()
        if "@" not in name or name.split("@", 1)[1].split("-", 1)[0] in agents
    }
    return {name: paths for name, paths in tables.items() if paths}


def test_the_estimate_of_a_scripted_run_is_the_run(tmp_path, small: SmallRun):
    small.finished()
    project = small.project
    assert {name for name, a in small.agents.items() if a["model"].startswith("scripted/")} == set(SCRIPTED)
    params = load_params(project / "params.yaml")
    # read-only on the shared run: its data only; anything the estimate would write goes under tmp_path
    report = estimate(params, agents=SCRIPTED, paths=Paths(data=project / "data", reports=tmp_path, cache=tmp_path))
    tables = _usage_tables(project, SCRIPTED)
    assert any("@oracle" in name for name in tables)
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
            # J1's simulation keys scripted calls with its own code fingerprint, which the estimate does not compute
            if not stage.startswith("j1_simulate@"):
                assert {s.call_key for s in sent} == set(rows.call_key), where
            assert sum(s.input_tokens for s in sent) == rows.prompt_tokens.sum(), where
            assert sum(s.output_tokens for s in sent) == rows.completion_tokens.sum(), where
    by_row = {(r.stage, r.role, r.model_name): r.calls for r in report.rows}
    assert sum(by_row.values()) == sum(len(pd.read_parquet(p)) for paths in tables.values() for p in paths)


# ------------------------------------------------------------------ `jurisflow eval` of one more agent


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


@pytest.mark.e2e
def test_eval_runs_one_agent_and_leaves_the_others_up_to_date(tmp_path, small: SmallRun):
    copy = small.copy_to(tmp_path / "project")  # the session's finished small run: every agent's stages ran
    env = small.env
    assert "up to date" in _dvc_status(copy, env, ("oracle", "echo"))

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
    # its stages, its report, then the HTML report (which reads every report)
    assert ran == [
        "lawbench_predict@probe-one_shot",
        "lawbench_predict@probe-zero_shot",
        "lawbench_report",
        "html_report",
    ]
    roles = "agent probe: scripted/oracle (stand-in: numbers are not the paper's)"  # said first, the plan after
    assert done.stderr.index(roles) < done.stderr.index("agents.probe written to params.yaml; ")
    assert "  lawbench   done, report refreshed" in done.stdout
    assert "  lawbench (protocol: ours): no model roles (rule-scored)" in done.stdout  # what it measured with
    # the other agents' stages included: nothing to run for them
    assert "Data and pipelines are up to date" in _dvc_status(copy, env, ("oracle", "echo", "probe"))
    for setting in ("zero_shot", "one_shot"):
        run = (copy / "data/lawbench/runs/probe" / setting / "run.json").read_text()
        assert '"limit": 2' in run  # the agent's own limit (the shared one is 3)

    csv = pd.read_csv(copy / "reports/lawbench.csv", keep_default_na=False, na_values=[""])
    for setting, column in (("zero_shot", "LawBench 0-shot"), ("one_shot", "LawBench 1-shot")):
        row = csv[
            (csv["table"] == setting) & (csv.agent == "probe") & (csv.scope == "overall") & (csv.metric == "score")
        ].iloc[0]
        # the leaderboard's column, the agent as every output labels it, the number as `jurisflow results` shows it
        label = re.escape(f"probe [scripted] [limit 2] [{row.protocol}]")  # the twin's protocol label too
        printed = re.search(rf"{column}\s+{label}\s+([\d.]+) \(n ([\d,]+)\)", done.stdout)
        assert printed and printed.group(1) == f"{row.value * 100:.1f}" and printed.group(2) == f"{int(row.n):,}"
        assert row["limit"] == 2  # the twin's limit column: the run's own
        assert row.protocol.endswith("of 10,000 items")  # a limited run: the size is its deviation
    assert "probe" in yaml_agents(copy) and "runs:" in (copy / "params.yaml").read_text()


def yaml_agents(copy: Path) -> dict:
    import yaml

    return yaml.safe_load((copy / "params.yaml").read_text())["agents"]


# ------------------------------------------------------------------ a fresh clone through a DVC remote
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


@pytest.mark.e2e
def test_a_fresh_clone_pulls_then_replays_model_stages_without_a_model_call(tmp_path, small: SmallRun):
    env = small.env
    remote, first, clone = tmp_path / "remote", tmp_path / "first", tmp_path / "clone"
    server, sent = small.server, small.server.count
    assert small.sent > 0  # the session's run sent the echo agent's calls to the test server
    small.copy_to(first)  # the finished run (oracle, and echo on the test server for LawBench and UCL)
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
    # the real agent's stages (a request would reach the test server) and a scripted dialogue stage (its answers come
    # from the pulled shards); the stages after them call no model and read the same bytes. Every stage's shard is
    # tested on its own in tests/test_remote.py and the benchmarks' stage tests.
    chosen = ("lawbench_predict@echo-zero_shot", "ucl_simulate@echo", "j1_simulate@oracle")
    assert set(chosen) <= set(every)
    stages = {name: every[name] for name in chosen}
    forced = repro(["-f", "--single-item", *stages], clone, env, timeout=2400)
    assert forced.returncode == 0, forced.stdout[-3000:] + forced.stderr[-3000:]
    assert all(f"Running stage '{name}'" in forced.stdout for name in stages)
    assert server.count == sent  # the real agent: no request
    replayed = 0
    for name, tables in stages.items():  # the scripted models: every call answered without the model
        for table in tables:
            logged = read_usage_log(clone / ".cache/llm", clone / table, last=True)
            assert logged.cache_hit.all(), f"{name}: {table}: {(~logged.cache_hit).sum()} calls sent"
            replayed += len(logged)
    assert replayed > 100
    # every report, output and dvc.lock entry is the same bytes: git sees nothing to commit, DVC nothing to do
    assert sh(["git", "status", "--porcelain"], clone, env).stdout == ""
    assert "up to date" in sh([BIN / "dvc", "status"], clone, env).stdout

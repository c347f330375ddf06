"""Failed calls end the UCL stages with exit 1 (a dialogue stage and a judge stage, through the shared
`check_calls`): outputs and failure rows are written, and a rerun against a healthy server calls only the
failed ones. One item per task, a fake OpenAI-compatible server failing some requests on every retry."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.kit.models import read_usage_log
from flows.kit.paths import Paths
from flows.kit.stage import run_stage
from flows.run import ucl_judge, ucl_reference, ucl_simulate
from steps.tables import write_table
from steps.ucl.sources import Ucl
from steps.ucl.tasks import TASKS
from tests.fake_openai_server import FakeOpenAIServer

pytestmark = pytest.mark.slow  # runs stages end to end: handed out before the quick modules

ORACLE = "scripted/oracle"
ADVICE = "您好，建议您先收集证据，再咨询律师。"
FAST_RETRIES = {"backoff_base_s": 0.01, "backoff_max_s": 0.02, "max_attempts": 2}


def _params(tmp_path: Path, url: str, judge: dict) -> Path:
    doc = {
        "agents": {"local": {"model": "hosted_vllm/test-model", "api_base": url}, "oracle": {"model": ORACLE}},
        "environment": {"model": "scripted/persona"},
        "judge": judge,
        "llm": {"cache_dir": str(tmp_path / "cache"), **FAST_RETRIES},
        "ucl": {"limit": 1, "pointwise": False},
    }
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def _paths(tmp_path: Path, ucl_items: pd.DataFrame) -> Paths:
    paths = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=tmp_path / ".cache")
    write_table(ucl_items, paths.interim / "ucl.parquet", Ucl, table="ucl")
    return paths


def _odd_first_question(body: dict) -> tuple | None:
    """Fail (HTTP 500, every retry) each request whose first user message hashes odd: a fixed set of items."""
    first = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return ("500",) if int(hashlib.sha256(first.encode()).hexdigest(), 16) % 2 else None


def test_a_dialogue_stage_with_failed_calls_exits_1_and_a_rerun_calls_only_them(tmp_path, ucl_items, capsys):
    paths = _paths(tmp_path, ucl_items)
    with FakeOpenAIServer(reply=lambda body: ADVICE, fault_for=_odd_first_question) as server:
        params = _params(tmp_path, server.url, {"model": "scripted/judge"})
        assert run_stage("ucl_simulate", ucl_simulate, agent_name="local", params_file=params, paths=paths) == 1
        run = paths.run("ucl", "local")
        dialogues, usage = pd.read_parquet(run / "dialogues.parquet"), pd.read_parquet(run / "usage.parquet")
        failed = usage[usage.failure_kind.notna()]
        broken = set(dialogues.loc[dialogues.ended_by == "call_failed", "instance_id"])
        assert 0 < len(broken) < len(dialogues) and failed.failure_kind.eq("server").all()
        assert len(failed) == len(broken)  # a dialogue ends at its failed call
        err = capsys.readouterr().err
        assert f"{len(failed)} of {len(usage)} model calls failed after retries (server {len(failed)}" in err

        server.fault_for, _ = None, server.reset_stats()
        assert run_stage("ucl_simulate", ucl_simulate, agent_name="local", params_file=params, paths=paths) == 0
    dialogues, usage = pd.read_parquet(run / "dialogues.parquet"), pd.read_parquet(run / "usage.parquet")
    assert dialogues.failure.isna().all() and usage.failure_kind.isna().all()
    logged = read_usage_log(tmp_path / "cache", run / "usage.parquet", last=True)
    assert len(logged) == len(usage)  # the tracked table's rows, with their history
    live = logged[~logged.cache_hit & (logged.purpose == "agent")]
    assert server.count == len(live) > 0  # only the broken dialogues' agent calls reached the server
    assert {json.loads(m)["instance_id"] for m in live.metadata} <= broken


def test_a_judge_stage_with_failed_calls_exits_1_and_a_rerun_calls_only_them(tmp_path, ucl_items, capsys):
    paths = _paths(tmp_path, ucl_items)
    with FakeOpenAIServer(reply=lambda body: "[[2]]", fault_for=_odd_first_question) as server:
        params = _params(tmp_path, server.url, {"model": "hosted_vllm/test-model", "api_base": server.url})
        assert run_stage("ucl_reference", ucl_reference, params_file=params, paths=paths) == 0
        assert run_stage("ucl_simulate", ucl_simulate, agent_name="oracle", params_file=params, paths=paths) == 0
        server.reset_stats()
        assert run_stage("ucl_judge", ucl_judge, agent_name="oracle", params_file=params, paths=paths) == 1
        verdicts = pd.read_parquet(paths.run("ucl", "oracle") / "verdicts.parquet")
        usage = pd.read_parquet(paths.run("ucl", "oracle") / "judge_usage.parquet")
        n_failed = int(usage.failure_kind.notna().sum())
        assert 0 < n_failed < len(usage) and (verdicts.failure == "call_failed").sum() > 0
        assert f"{n_failed} of {len(usage)} model calls failed after retries (server {n_failed}" in (
            capsys.readouterr().err
        )

        server.fault_for, _ = None, server.reset_stats()
        assert run_stage("ucl_judge", ucl_judge, agent_name="oracle", params_file=params, paths=paths) == 0
        assert server.count == n_failed  # the judged orders come from the cache
    verdicts = pd.read_parquet(paths.run("ucl", "oracle") / "verdicts.parquet")
    assert (verdicts.failure != "call_failed").all()


def test_accepted_judge_failures_are_shown_beside_the_win_rates_they_leave_out(tmp_path, ucl_items):
    from flows.run import ucl_report

    paths = _paths(tmp_path, ucl_items)
    with FakeOpenAIServer(reply=lambda body: "[[2]]", fault_for=_odd_first_question) as server:
        params = _params(tmp_path, server.url, {"model": "hosted_vllm/test-model", "api_base": server.url})
        doc = yaml.safe_load(params.read_text(encoding="utf-8"))
        doc["agents"] = {"oracle": {"model": ORACLE}}
        doc["llm"]["max_failed_fraction"] = 0.99  # accept the failed judge calls (not all of them fail)
        params.write_text(yaml.safe_dump(doc), encoding="utf-8")
        assert run_stage("ucl_reference", ucl_reference, params_file=params, paths=paths) == 0
        assert run_stage("ucl_simulate", ucl_simulate, agent_name="oracle", params_file=params, paths=paths) == 0
        assert run_stage("ucl_judge", ucl_judge, agent_name="oracle", params_file=params, paths=paths) == 0
    assert run_stage("ucl_report", ucl_report, params_file=params, paths=paths) == 0
    verdicts = pd.read_parquet(paths.run("ucl", "oracle") / "verdicts.parquet")
    extra = {t.key for t in TASKS if t.extra}  # CC: reported apart, in no average
    failed = verdicts[verdicts.failure == "call_failed"]
    n_failed, in_paper_tasks = len(failed), int((~failed.task.isin(extra)).sum())
    csv = pd.read_csv(paths.reports / "ucl.csv", keep_default_na=False, na_values=[""])
    overall = csv[(csv.metric == "win_rate") & (csv.scope == "overall") & (csv.agent == "oracle")]
    assert n_failed > 0 and overall.n_failed.tolist() == [in_paper_tasks]
    report = (paths.reports / "ucl.md").read_text(encoding="utf-8")
    assert f"({in_paper_tasks} failed)" in report and f"cost verdicts: `oracle` {n_failed}." in report

"""The four PLawBench stages end to end with a real HTTP agent and judge (litellm → fake OpenAI-compatible
servers): a failing agent call and an unparsable judge answer become counted rows, never zeros; a rerun
retries only what failed and replays the rest from the cache."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.kit.models import read_usage_log
from flows.run import plawbench_judge, plawbench_predict, plawbench_report, plawbench_rubrics
from steps.sources.tables import interim_tables
from steps.tables import to_arrow, write_parquet_atomic
from tests.conftest import ROOT
from tests.fake_openai_server import FakeOpenAIServer
from tests.plawbench.conftest import NAMES

pytestmark = pytest.mark.slow

ITEM = re.compile(r"^\[([^\]]+)\]（满分 ([\d.]+) 分）", re.M)
FAIL = re.compile(r"^\[([^\]]+)\]（针对", re.M)
PENALTY = re.compile(r"^\[([^\]]+)\]（每次扣", re.M)


def judge_reply(body: dict) -> str:
    """Half of every item's points; no fail condition, no penalty; garbage for one PCA task."""
    prompt = body["messages"][0]["content"]
    if "婚庆服务合同" in prompt:
        return "这个回答写得不错。"
    items = ",".join(f'{{"id": "{i}", "awarded": {float(p) / 2}}}' for i, p in ITEM.findall(prompt))
    fails = ",".join(f'{{"id": "{i}", "triggered": false}}' for i in FAIL.findall(prompt))
    penalties = ",".join(f'{{"id": "{i}", "times": 0}}' for i in PENALTY.findall(prompt))
    return f'{{"items": [{items}], "fails": [{fails}], "penalties": [{penalties}]}}'


class Agent:
    """Answers every task; fails (HTTP 500) on the first consultation while `broken`."""

    broken = True

    def __call__(self, body: dict) -> str:
        text = "\n".join(m["content"] for m in body["messages"])
        if self.broken and "李芳" in text and "张元" in text:
            raise RuntimeError("agent down")
        return "1. 您报警了吗？\n2. 有没有病历？" if "追问" in text else "【结论】可以。"


@pytest.fixture
def project(tmp_path, monkeypatch, sources):
    monkeypatch.chdir(tmp_path)
    shutil.copy(ROOT / "sources.yaml", tmp_path / "sources.yaml")  # the report names the data's commit
    for name in NAMES:
        write_parquet_atomic(
            to_arrow(sources[name], dict(interim_tables()[name].arrow_types)), Path("data/interim") / f"{name}.parquet"
        )
    agent, judge = Agent(), FakeOpenAIServer(reply=judge_reply).start()
    agent_server = FakeOpenAIServer(reply=agent).start()
    params = {
        "agents": {"fake": {"model": "hosted_vllm/test-model", "api_base": agent_server.url}},
        "environment": {"model": "scripted/persona"},
        "judge": {"model": "hosted_vllm/test-model", "api_base": judge.url},
        "llm": {
            "cache_dir": str(tmp_path / "cache"),
            "backoff_base_s": 0.01,
            "backoff_max_s": 0.02,
            "max_attempts": 2,
            "concurrency": 4,
            "max_failed_fraction": 0.2,
        },  # 2 of 16 calls fail: accepted
        "plawbench": {"limit": 1, "judge_repairs": 1, "multiturn": {"enabled": True, "max_turns": 2}},
    }
    Path("params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True), encoding="utf-8")
    yield agent
    agent_server.stop()
    judge.stop()


def test_stages_record_failures_and_a_rerun_retries_only_them(project):
    assert plawbench_rubrics().startswith("280 tasks")
    first = plawbench_predict("fake")
    assert "15 tasks, 1 multi-turn consultations" in first and "2 failed" in first
    responses = pd.read_parquet("data/plawbench/runs/fake/responses.parquet")
    failed = responses[responses.failure.notna()]
    assert failed[["item_id", "variant"]].values.tolist() == [["plc/1", "single"], ["plc/1", "multiturn"]]
    assert failed.failure.str.startswith("server").all() and failed.turns.tolist() == [1, 1]
    plawbench_judge("fake")
    judgements = pd.read_parquet("data/plawbench/runs/fake/judgements.parquet").set_index(["item_id", "variant"])
    assert judgements.loc["plc/1", "failure"].tolist() == ["agent_call_failed"] * 2
    assert judgements.at[("pca/0", "single"), "failure"] == "unparsable"
    assert judgements.failure.notna().sum() == 3 and judgements.value.dropna().between(0.45, 1).all()
    plawbench_report()
    csv = pd.read_csv("reports/plawbench.csv")
    t1 = csv[(csv["table"] == "table3") & (csv.agent == "fake") & (csv.metric == "T1")]
    assert pd.isna(t1.value.item()) and t1.n.item() == 0  # the only consultation failed: no rate, not 0
    assert t1.n_failed.item() == 1  # and the CSV says why
    report = Path("reports/plawbench.md").read_text(encoding="utf-8")
    assert "| — (1 failed) |" in report and "Failed model calls (after retries" in report
    health = csv[(csv["table"] == "judge") & (csv.agent == "fake")]
    assert health[(health.scope == "single/case_analysis") & (health.metric == "unparsable")].value.item() == 1
    assert "agent_failed" in Path("reports/plawbench.md").read_text(encoding="utf-8")
    t2 = csv[(csv["table"] == "table3") & (csv.agent == "fake") & (csv.metric == "T2")]
    assert t2.n_unparsable.item() == 1 and t2.n_failed.item() == 0  # the unparsable judge answer, counted apart
    assert "(1 unparsable)" in report and "Unparsable judge answers (no valid answer" in report

    project.broken = False  # the agent is back: the rerun retries the failed call, everything else is cached
    second = plawbench_predict("fake")
    assert "0 failed" in second
    usage = read_usage_log(Path("cache"), Path("data/plawbench/runs/fake/usage.parquet"), last=True)  # cwd: tmp_path
    fresh = usage[~usage.cache_hit]
    assert len(fresh) >= 2 and fresh.metadata.str.contains('"instance_id": "plc/1"').all()
    plawbench_judge("fake")
    judgements = pd.read_parquet("data/plawbench/runs/fake/judgements.parquet")
    assert judgements.failure.dropna().tolist() == ["unparsable"]


def _tolerate(fraction: float) -> None:
    doc = yaml.safe_load(Path("params.yaml").read_text(encoding="utf-8"))
    doc["llm"]["max_failed_fraction"] = fraction
    Path("params.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")


def test_an_unparsable_judge_answer_fails_the_judge_stage_unless_the_tolerance_covers_it(project, capsys):
    from flows.kit.stage import run_stage

    plawbench_rubrics()
    plawbench_predict("fake")  # its 2 failed agent calls are accepted (0.2); they are no judge answer
    _tolerate(0.0)
    assert run_stage("plawbench_judge", plawbench_judge, agent_name="fake") == 1
    judgements = pd.read_parquet("data/plawbench/runs/fake/judgements.parquet")
    asked = judgements[judgements.judge != ""]  # the agent-failed rows were never judged
    assert (judgements.failure == "unparsable").sum() == 1 and len(asked) == len(judgements) - 2
    share = 1 / len(asked)
    assert f"1 of {len(asked)} judge answers unparsable after the repair rounds ({share:.1%})" in (
        capsys.readouterr().err
    )
    assert pd.read_parquet("data/plawbench/runs/fake/judge_usage.parquet").failure_kind.isna().all()
    _tolerate(share)  # at the tolerance: accepted
    assert run_stage("plawbench_judge", plawbench_judge, agent_name="fake") == 0

"""`plawbench: {protocol: paper}` on a fake server: the paper's judge `gemini/gemini-3-pro-preview` kept as it is and
given an `api_base` (litellm's gemini provider speaks Google AI Studio's `generateContent`, not OpenAI's chat API:
the fake server answers both), and the judge switched to another model on the OpenAI route: the judge's calls carry
the model and greedy decoding, its run.json records it beside the paper's judge, and reports/plawbench.csv names
the switch and the public subset in every row of ours."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.run import plawbench_judge, plawbench_predict, plawbench_report, plawbench_rubrics
from steps.llm.secrets import NO_KEY
from steps.sources.tables import interim_tables
from steps.tables import to_arrow, write_parquet_atomic
from tests.conftest import ROOT
from tests.fake_openai_server import FakeOpenAIServer
from tests.plawbench.conftest import NAMES
from tests.plawbench.test_flows import judge_reply

pytestmark = pytest.mark.slow


def _judged_with(tmp_path: Path, sources, judge_entry: dict) -> None:
    """In `tmp_path` (the working folder): the interim tables, a params.yaml with PLawBench under `protocol: paper`
    and `judge_entry` as its judge (one item, single-turn), then its rubrics, the oracle's answers and their judging."""
    shutil.copy(ROOT / "sources.yaml", tmp_path / "sources.yaml")
    for name in NAMES:
        write_parquet_atomic(
            to_arrow(sources[name], dict(interim_tables()[name].arrow_types)), Path("data/interim") / f"{name}.parquet"
        )
    params = {
        "agents": {"oracle": {"model": "scripted/oracle"}},
        "llm": {"cache_dir": str(tmp_path / "cache"), "max_attempts": 1, "max_failed_fraction": 0.2},
        "plawbench": {"protocol": "paper", "judge": judge_entry, "limit": 1, "multiturn": {"enabled": False}},
    }
    Path("params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True), encoding="utf-8")
    plawbench_rubrics()
    plawbench_predict("oracle")
    plawbench_judge("oracle")


def test_a_switched_paper_judge_is_called_and_named_in_the_label(tmp_path, monkeypatch, sources):
    monkeypatch.chdir(tmp_path)
    with FakeOpenAIServer(reply=judge_reply) as judge:
        _judged_with(tmp_path, sources, {"model": "openai/gemini-3-pro-preview", "api_base": judge.url})
        requests = list(judge.requests)
    assert requests and {b["model"] for b in requests} == {"gemini-3-pro-preview"}
    assert all(b["temperature"] == 0 for b in requests)
    record = json.loads(Path("data/plawbench/runs/oracle/judge/run.json").read_text(encoding="utf-8"))
    judge_role = record["protocol_record"]["roles"]["judge"]
    assert (judge_role["model"], judge_role["paper_model"]) == (
        "openai/gemini-3-pro-preview",
        "gemini/gemini-3-pro-preview",
    )
    plawbench_report()
    csv = pd.read_csv("reports/plawbench.csv", keep_default_na=False, na_values=[""])
    assert set(csv.protocol[csv.agent == "oracle"]) == {
        "judge openai/gemini-3-pro-preview, paper Gemini-3.0-Pro-Preview; 15 of 850 questions"
    }


def test_the_papers_gemini_judge_reaches_a_configured_endpoint(tmp_path, monkeypatch, sources):
    """The paper's judge, `gemini/gemini-3-pro-preview`, kept as it is with only an `api_base` of its own: litellm's
    gemini provider speaks Google AI Studio's `generateContent` (not OpenAI's chat API), at `<api_base>/models/
    <model>:generateContent`, which the fake server answers. No call leaves the machine and no provider key is
    sent (the door's placeholder), the judge's run.json records the paper's own model, and the label names only
    the public subset."""
    monkeypatch.chdir(tmp_path)
    for variable in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.setenv(variable, "a-real-key-that-must-not-be-sent")
    with FakeOpenAIServer(reply=judge_reply) as judge:
        _judged_with(tmp_path, sources, {"api_base": judge.url})  # the paper's model string, reached at this endpoint
        requests, headers = list(judge.requests), list(judge.headers_seen)
    assert requests and all(b["gemini"] for b in requests)  # every call came as Gemini's generateContent
    assert {b["model"] for b in requests} == {"gemini-3-pro-preview"}
    assert all(b["temperature"] == 0 for b in requests)
    assert {h.get("x-goog-api-key") for h in headers} == {NO_KEY}  # the door's placeholder, never the real key
    record = json.loads(Path("data/plawbench/runs/oracle/judge/run.json").read_text(encoding="utf-8"))
    judge_role = record["protocol_record"]["roles"]["judge"]
    assert judge_role["model"] == judge_role["paper_model"] == "gemini/gemini-3-pro-preview"
    assert record["protocol_record"]["label"] == "15 of 850 questions"
    scores = pd.read_parquet("data/plawbench/runs/oracle/scores.parquet")
    assert scores.failure.isna().any()  # the judge's answers were read and scored

"""`plawbench: {protocol: paper}` with the judge switched to another model on a fake OpenAI-compatible server
(Gemini-3.0-Pro-Preview speaks Google's API, not OpenAI's): the judge's calls carry that model and greedy decoding,
its run.json records it beside the paper's judge, and reports/plawbench.csv names the switch and the public subset
in every row of ours."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.run import plawbench_judge, plawbench_predict, plawbench_report, plawbench_rubrics
from steps.sources.tables import interim_tables
from steps.tables import to_arrow, write_parquet_atomic
from tests.conftest import ROOT
from tests.fake_openai_server import FakeOpenAIServer
from tests.plawbench.conftest import NAMES
from tests.plawbench.test_flows import judge_reply

pytestmark = pytest.mark.slow


def test_a_switched_paper_judge_is_called_and_named_in_the_label(tmp_path, monkeypatch, sources):
    monkeypatch.chdir(tmp_path)
    shutil.copy(ROOT / "sources.yaml", tmp_path / "sources.yaml")
    for name in NAMES:
        write_parquet_atomic(
            to_arrow(sources[name], dict(interim_tables()[name].arrow_types)), Path("data/interim") / f"{name}.parquet"
        )
    with FakeOpenAIServer(reply=judge_reply) as judge:
        params = {
            "agents": {"oracle": {"model": "scripted/oracle"}},
            "llm": {"cache_dir": str(tmp_path / "cache"), "max_attempts": 1, "max_failed_fraction": 0.2},
            "plawbench": {
                "protocol": "paper",
                "judge": {"model": "openai/gemini-3-pro-preview", "api_base": judge.url},
                "limit": 1,
                "multiturn": {"enabled": False},
            },
        }
        Path("params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True), encoding="utf-8")
        plawbench_rubrics()
        plawbench_predict("oracle")
        plawbench_judge("oracle")
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

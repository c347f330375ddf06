"""`ucl: {protocol: paper}` end to end on one item, with a fake OpenAI-compatible server standing in for every paper
model: the simulated user and the judge are sent `gpt-4-0613`, the reference `gpt-3.5-turbo-1106`, all greedy; each
run.json records the roles beside the paper's; the twin's `protocol` column and the report say that only the data
size differs from the paper's; a judge switched to another model is named in the label."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

from flows.kit.paths import Paths
from flows.kit.stage import run_stage
from flows.run import ucl_judge, ucl_reference, ucl_report, ucl_simulate
from steps.tables import write_table
from steps.ucl.sources import Ucl
from steps.ucl.tasks import TASKS
from tests.fake_openai_server import FakeOpenAIServer

pytestmark = pytest.mark.slow  # runs four stages end to end

TASK = next(t.key for t in TASKS if not t.extra)


def reply(body: dict) -> str:
    """The judge's verdict when asked for one, else a user's (or the reference's) plain sentence."""
    asked = " ".join(str(m.get("content")) for m in body["messages"])
    return "[[2]]" if "[[1]]" in asked else "我想问一下这种情况应该怎么办？"


def write_params(path, url: str, judge: dict | None = None) -> None:
    doc = {
        "agents": {"oracle": {"model": "scripted/oracle"}},
        "llm": {"cache_dir": str(path.parent / "cache"), "max_attempts": 1},
        "ucl": {
            "protocol": "paper",
            "environment": {"api_base": url},  # the paper's model, reached at the fake server
            "judge": judge or {"api_base": url},
            "reference": {"name": "chatgpt", "model": "openai/gpt-3.5-turbo-1106", "api_base": url},
            "limit": 1,
            "tasks": [TASK],
            "pointwise": False,
        },
    }
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")


def test_paper_protocol_sends_each_role_to_the_papers_model_and_labels_the_run(tmp_path, ucl_items):
    paths = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=tmp_path / ".cache")
    write_table(ucl_items, paths.interim / "ucl.parquet", Ucl, table="ucl")
    params = tmp_path / "params.yaml"
    args = {"params_file": params, "paths": paths}
    with FakeOpenAIServer(reply=reply) as server:
        write_params(params, server.url)
        assert run_stage("ucl_reference", ucl_reference, **args) == 0
        reference_calls = list(server.requests)
        assert run_stage("ucl_simulate", ucl_simulate, agent_name="oracle", **args) == 0
        assert run_stage("ucl_judge", ucl_judge, agent_name="oracle", **args) == 0
        requests = list(server.requests)
    models = [b["model"] for b in requests]
    assert {b["model"] for b in reference_calls} == {"gpt-4-0613", "gpt-3.5-turbo-1106"}  # the user and the reference
    judged = [b for b in requests if "[[1]]" in json.dumps(b["messages"], ensure_ascii=False)]
    assert judged and {b["model"] for b in judged} == {"gpt-4-0613"}  # both judge orders
    assert set(models) == {"gpt-4-0613", "gpt-3.5-turbo-1106"} and all(b["temperature"] == 0 for b in requests)

    run = json.loads((paths.run("ucl", "oracle") / "run.json").read_text(encoding="utf-8"))["protocol_record"]
    assert run["protocol"] == "paper" and run["roles"]["environment"]["model"] == "openai/gpt-4-0613"
    assert run["roles"]["environment"]["paper_model"] == "openai/gpt-4-0613" and run["data"]["size"] == 1
    assert run["label"] == "1 of 1,100 items"  # the public release: every role follows the paper
    judge_run = json.loads((paths.run("ucl", "oracle") / "judge" / "run.json").read_text(encoding="utf-8"))
    assert judge_run["protocol_record"]["roles"]["judge"]["model"] == "openai/gpt-4-0613"
    reference = json.loads((paths.reference("ucl") / "run.json").read_text(encoding="utf-8"))["protocol_record"]
    assert reference["roles"]["reference"]["model"] == "openai/gpt-3.5-turbo-1106"
    assert set(reference["prompts"]["templates"]) >= {"ucl/templates/user.j2"}

    assert run_stage("ucl_report", ucl_report, **args) == 0
    csv = pd.read_csv(paths.reports / "ucl.csv", keep_default_na=False, na_values=[""])
    assert set(csv.protocol[csv.agent == "oracle"]) == {"1 of 1,100 items"}
    assert csv.protocol[csv.source == "paper"].isna().all()
    assert "oracle [scripted] [limit 1] [1 of 1,100 items]" in (paths.reports / "ucl.md").read_text(encoding="utf-8")

    with FakeOpenAIServer(reply=reply) as server:  # one role switched: the label names it
        write_params(params, server.url, {"model": "openai/gpt-4o-mini", "api_base": server.url})
        assert run_stage("ucl_judge", ucl_judge, agent_name="oracle", **args) == 0
        assert {b["model"] for b in server.requests} == {"gpt-4o-mini"}
    assert run_stage("ucl_report", ucl_report, **args) == 0
    csv = pd.read_csv(paths.reports / "ucl.csv", keep_default_na=False, na_values=[""])
    assert set(csv.protocol[csv.agent == "oracle"]) == {
        "judge openai/gpt-4o-mini, paper GPT-4 (gpt-4-0613); 1 of 1,100 items"
    }

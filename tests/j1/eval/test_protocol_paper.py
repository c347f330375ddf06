"""`j1: {protocol: paper}` with a fake OpenAI-compatible server standing in for the paper's metric LLM
(gpt-4o-2024-11-20, greedy; spec j1-envs §8.1): stage `j1_judge` sends every judge call to that snapshot at
temperature 0, and reports/j1.csv labels the run with what still differs from the paper (an environment kept on
the stand-in, the sample size, instances rebuilt from public judgments)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

from flows.kit.stage import run_stage
from flows.run import j1_judge, j1_report, j1_simulate
from tests.fake_openai_server import FakeOpenAIServer
from tests.j1.envs.conftest import build, write_sources

pytestmark = pytest.mark.slow

PROSE = "这位律师的回答总体上还可以。"


def test_paper_protocol_sends_the_judge_to_the_papers_snapshot_and_labels_what_differs(tmp_path):
    project = write_sources(tmp_path / "build", sizes={"KQ": 1, "CR": 1})
    build(project)
    with FakeOpenAIServer(reply=lambda body: PROSE) as server:
        doc = yaml.safe_load(project.params.read_text(encoding="utf-8"))
        doc["agents"] = {"oracle": {"model": "scripted/oracle"}}
        doc["llm"]["max_failed_fraction"] = 1.0  # prose answers do not parse: counted, not the point here
        doc["j1"]["simulate"] = {"transcripts": 0}
        doc["j1"].update(
            protocol="paper",
            environment={"model": "scripted/persona"},  # one role kept on the stand-in
            judge={"api_base": server.url},  # the paper's metric LLM, reached at the fake server
        )
        project.params.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
        args = {"agent_name": "oracle", "params_file": project.params, "paths": project.paths}
        assert run_stage("j1_simulate", j1_simulate, **args) == 0
        assert server.count == 0  # the dialogues: the stand-in environment only
        assert run_stage("j1_judge", j1_judge, **args) == 0
        requests = list(server.requests)
    assert requests and {b["model"] for b in requests} == {"gpt-4o-2024-11-20"}
    assert all(b["temperature"] == 0 for b in requests)
    run = json.loads((project.paths.runs("j1") / "oracle" / "run.json").read_text(encoding="utf-8"))
    record = run["protocol_record"]
    assert record["roles"]["environment"]["model"] == "scripted/persona"
    assert record["roles"]["environment"]["paper_model"] == "openai/gpt-4o-2024-11-20"
    assert record["data"] == {"size": 2, "paper_size": 508, "unit": "instances"}
    assert run_stage("j1_report", j1_report, params_file=project.params, paths=project.paths) == 0
    csv = pd.read_csv(project.paths.reports / "j1.csv", keep_default_na=False, na_values=[""])
    labels = set(csv.protocol[csv.agent == "oracle"])
    assert len(labels) == 1
    label = labels.pop()
    assert label.startswith("environment scripted/persona, paper GPT-4o; ")
    assert "judge" not in label  # the judge follows the paper
    assert label.endswith("2 of 508 instances; instances rebuilt from public judgments")


def test_paper_protocol_sends_every_environment_role_of_the_simulation_to_the_papers_snapshot(tmp_path):
    """The environment role of `j1: {protocol: paper}` is more than a recorded parameter: the preset's model
    (steps/j1/protocol.py: gpt-4o-2024-11-20, greedy) is what `params.environment_model("j1")` resolves, what
    stage `j1_simulate` hands its speaker (steps/j1/eval/stages.py: DoorSpeaker) and so what every environment
    role of every scenario (KQ's questioner, CR's judge, procurator and defendant) calls, over HTTP."""
    project = write_sources(tmp_path / "build", sizes={"KQ": 1, "CR": 1})
    build(project)
    with FakeOpenAIServer(reply=lambda body: "请继续说明。", models=("gpt-4o-2024-11-20",)) as server:
        doc = yaml.safe_load(project.params.read_text(encoding="utf-8"))
        doc["agents"] = {"oracle": {"model": "scripted/oracle"}}
        doc["llm"]["max_failed_fraction"] = 1.0
        doc["j1"]["simulate"] = {"transcripts": 0, "max_turns": {"KQ": 3, "CR": 4}}
        doc["j1"].update(protocol="paper", environment={"api_base": server.url})  # the paper's model, at the fake
        project.params.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
        args = {"agent_name": "oracle", "params_file": project.params, "paths": project.paths}
        assert run_stage("j1_simulate", j1_simulate, **args) == 0
        requests = list(server.requests)
    assert requests and {b["model"] for b in requests} == {"gpt-4o-2024-11-20"}
    assert all(b["temperature"] == 0 for b in requests)
    run_dir = project.paths.runs("j1") / "oracle"
    usage = pd.read_parquet(run_dir / "usage.parquet")
    environment = usage[usage.purpose == "environment"]
    assert set(environment.model) == {"openai/gpt-4o-2024-11-20"}
    cached = pd.read_parquet(run_dir / "call_cache.parquet")  # one row per distinct call the run got answered
    assert (cached.model == "openai/gpt-4o-2024-11-20").sum() == len(requests)  # each one reached the server
    turns = pd.read_parquet(run_dir / "turns.parquet")
    spoken = turns[(turns.kind == "utterance") & (turns.speaker != "agent")] if "kind" in turns else turns
    assert set(spoken.scenario) == {"KQ", "CR"}  # both scenarios' environment roles spoke through the server
    run = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert (run["environment"], run["environment_endpoint"]) == ("openai/gpt-4o-2024-11-20", server.url)
    role = run["protocol_record"]["roles"]["environment"]
    assert role["model"] == role["paper_model"] and role["endpoint"] == server.url
    assert "environment" not in run["protocol_record"]["label"]  # it follows the paper

"""LawBench's paper decoded each model family its own way (§4: ChatGPT and GPT-4 at temperature 0.7 and top_p 1,
open models greedy, 1,024 new tokens): an agent whose decoding differs from that is named in its protocol label,
under `protocol: ours` too, in run.json, the reports' label, `params check` and eval's printout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from steps.params import Params
from steps.protocol import PAPER_PROTOCOL
from steps.reports.runs import protocol_label
from steps.runs import RunRecord

GPT4, OPEN = "openai/gpt-4-0613", "hosted_vllm/qwen"


def _params(model: str, decoding: dict | None = None, **lawbench) -> Params:
    agent = {"model": model, **({"decoding": decoding} if decoding is not None else {})}
    return Params.model_validate(
        {"agents": {"mine": agent, "oracle": {"model": "scripted/oracle"}}, "lawbench": lawbench}
    )


def _label(params: Params, agent: str = "mine", size: int = 10_000) -> str:
    return params.protocol_record("lawbench", size, agent=agent).label


def test_a_gpt_agent_at_temperature_0_under_ours_is_named_not_paper_protocol():
    assert _label(_params(GPT4)) == "agent temperature 0, paper 0.7; agent top_p unset, paper 1"
    # the same agent under protocol: paper is decoded as the paper did: nothing to name
    assert _label(_params(GPT4, protocol="paper")) == PAPER_PROTOCOL
    # an agent set to the paper's decoding itself follows the paper under ours
    assert _label(_params(GPT4, {"temperature": 0.7, "top_p": 1})) == PAPER_PROTOCOL


def test_an_open_model_is_greedy_in_the_paper():
    assert _label(_params(OPEN)) == PAPER_PROTOCOL  # temperature 0, the 1,024 new tokens of lawbench.max_new_tokens
    assert _label(_params(OPEN, {"temperature": 0.3})) == "agent temperature 0.3, paper 0"


def test_an_output_limit_is_named_once_and_an_agents_own_smaller_one_is_named():
    # lawbench.max_new_tokens 256 caps the agent at 256: the setting names it, the agent's max_tokens is not repeated
    assert _label(_params(OPEN, max_new_tokens=256)) == "new tokens 256, paper 1024"
    # the agent's own max_tokens 64 stays under the cap of 1,024: a deviation of the agent's own
    assert _label(_params(OPEN, {"max_tokens": 64})) == "agent max_tokens 64, paper 1024"
    # no cap at all: sent with no max_tokens, named by the setting only
    assert _label(_params(OPEN, max_new_tokens=None)) == "new tokens sent whole, paper 1024"


def test_a_scripted_agent_is_not_compared_and_its_record_keeps_its_old_keys():
    params = _params(GPT4)
    assert _label(params, "oracle") == PAPER_PROTOCOL  # a stand-in's numbers say [scripted] instead
    scripted = params.run_protocol("lawbench", 10_000, agent="oracle")
    assert "agent" not in scripted  # a scripted agent's run.json (and its run id) stays as it was
    assert scripted == params.run_protocol("lawbench", 10_000)
    real = params.run_protocol("lawbench", 10_000, agent="mine")
    assert real["agent"]["model"] == GPT4
    assert (real["agent"]["decoding"]["temperature"], real["agent"]["paper_decoding"]["temperature"]) == (0.0, 0.7)
    assert real["agent"]["source"].startswith("paper §4")
    assert real["label"] == "agent temperature 0, paper 0.7; agent top_p unset, paper 1"


def test_the_reports_label_reads_the_agent_from_run_json(tmp_path):
    """`protocol_label` (every report's protocol column) takes the agent as the run recorded it."""
    params = _params(GPT4)
    spec = {"protocol_record": params.run_protocol("lawbench", 40, agent="mine")}
    record = RunRecord(tmp_path, "r1", None, spec)
    assert protocol_label(params, "lawbench", [record]) == (
        "agent temperature 0, paper 0.7; agent top_p unset, paper 1; 40 of 10,000 items"
    )
    # a run made before the agent was recorded (or a scripted one): no agent deviation
    old = RunRecord(tmp_path, "r0", None, {"protocol_record": {"data": {"size": 40}}})
    assert protocol_label(params, "lawbench", [old]) == "40 of 10,000 items"


def test_params_check_and_evals_printout_name_the_agents_decoding(tmp_path: Path):
    from typer.testing import CliRunner

    from flows.cli import app
    from flows.evaluate import role_summary

    path = tmp_path / "params.yaml"
    doc = {"agents": {"mine": {"model": GPT4}, "oracle": {"model": "scripted/oracle"}}}
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    out = CliRunner().invoke(app, ["params", "check", "--file", str(path)])
    assert out.exit_code == 0, out.output
    assert (
        "  agent mine openai/gpt-4-0613 (temperature 0, max_tokens 1024): deviates: agent temperature 0, paper 0.7; "
        "agent top_p unset, paper 1 (paper §4 (ChatGPT, GPT-4: temperature 0.7, top_p 1; other models greedy; 1,024 "
        "new tokens))"
    ) in out.output.splitlines()
    assert "agent oracle" not in out.output  # a scripted agent has no line
    params = Params.model_validate(doc)
    lines = role_summary(params, ["lawbench"], "mine", reports=tmp_path / "no-reports")
    assert lines[1] == "    label: agent temperature 0, paper 0.7; agent top_p unset, paper 1"


@pytest.mark.slow  # runs the stage end to end
def test_the_stage_records_the_agent_beside_the_papers_decoding(tmp_path, mirror, manifest):
    """lawbench_predict against a fake server, a GPT-4 agent at temperature 0: run.json's label names it."""
    from flows.kit.stage import run_stage
    from flows.run import lawbench_predict
    from tests.fake_openai_server import FakeOpenAIServer
    from tests.helpers import project_paths, write_lawbench_interim

    interim = write_lawbench_interim(mirror, manifest, tmp_path / "interim")
    with FakeOpenAIServer(reply=lambda body: "正确答案：A", models=("gpt-4-0613",)) as server:
        doc = {
            "agents": {"gpt": {"model": "openai/gpt-4-0613", "api_base": server.url}},
            "llm": {"cache_dir": str(tmp_path / "cache"), "max_attempts": 1},
            "lawbench": {"tasks": ["1-1"], "limit": 2},
        }
        params = tmp_path / "params.yaml"
        params.write_text(yaml.safe_dump(doc), encoding="utf-8")
        paths = project_paths(tmp_path, interim)
        assert (
            run_stage(
                "lawbench_predict",
                lawbench_predict,
                agent_name="gpt",
                setting="zero_shot",
                params_file=params,
                paths=paths,
            )
            == 0
        )
        sent = {(r["temperature"], r.get("top_p")) for r in server.requests}
    assert sent == {(0.0, None)}
    run = json.loads((paths.run("lawbench", "gpt", "zero_shot") / "run.json").read_text(encoding="utf-8"))
    assert run["protocol_record"]["label"] == (
        "agent temperature 0, paper 0.7; agent top_p unset, paper 1; 2 of 10,000 items"
    )

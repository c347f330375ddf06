"""Stage `lawbench_predict` generates as LawBench did (issue 38): a prompt over 2,048 tokens arrives at the server cut
to its first 2,048 tokens (counted by the served model's tokenizer through vLLM's or llama.cpp's `/tokenize`, else
one token per character), every request asks at most 1,024 new tokens, and the predictions table and run.json
record both limits and each item's cut."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.kit.stage import run_stage
from flows.run import lawbench_predict
from steps.lawbench.predict import prompt_text
from tests.fake_openai_server import FakeOpenAIServer
from tests.helpers import project_paths, write_lawbench_interim

pytestmark = pytest.mark.slow  # runs the stage end to end

PAPER_INPUT, PAPER_OUTPUT = 2048, 1024


@pytest.fixture(scope="module")
def interim(mirror, manifest, tmp_path_factory) -> Path:
    return write_lawbench_interim(mirror, manifest, tmp_path_factory.mktemp("interim"))


def _run(tmp_path: Path, interim: Path, server: FakeOpenAIServer, lawbench: dict) -> tuple[pd.DataFrame, dict]:
    doc = {
        "agents": {"local": {"model": "hosted_vllm/test-model", "api_base": server.url}},
        "llm": {"cache_dir": str(tmp_path / "cache"), "max_attempts": 1},
        "lawbench": lawbench,
    }
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump(doc), encoding="utf-8")
    paths = project_paths(tmp_path, interim)
    got = run_stage(
        "lawbench_predict", lawbench_predict, agent_name="local", setting="zero_shot", params_file=params, paths=paths
    )
    assert got == 0
    run = paths.run("lawbench", "local", "zero_shot")
    return pd.read_parquet(run / "predictions.parquet"), json.loads((run / "run.json").read_text(encoding="utf-8"))


def _originals(interim: Path, tasks: list[str], limit: int) -> dict[tuple[str, int], str]:
    items = pd.read_parquet(interim / "lawbench_items.parquet")
    items = items[(items.setting == "zero_shot") & items.task.isin(tasks) & (items.idx < limit)]
    return {(r.task, int(r.idx)): prompt_text(r.instruction, r.question) for r in items.itertuples()}


@pytest.mark.parametrize(("style", "owner"), [("vllm", "vllm"), ("llama.cpp", "llamacpp")])
def test_prompts_over_2048_tokens_arrive_cut_by_the_servers_tokenizer(tmp_path, interim, style, owner):
    tasks, limit = ["1-2", "3-5"], 3
    originals = _originals(interim, tasks, limit)
    # the fake tokenizer counts UTF-8 bytes (3 a Chinese character): prompts over ~683 characters are over 2,048
    over = {k: p for k, p in originals.items() if len(p.encode("utf-8")) > PAPER_INPUT}
    assert over and len(over) < len(originals)  # some are cut, some are not
    with FakeOpenAIServer(reply=lambda body: "正确答案：A", owned_by=owner, tokenize_style=style) as server:
        predictions, record = _run(tmp_path, interim, server, {"limit": limit, "tasks": tasks})
        sent = [r["messages"][-1]["content"] for r in server.requests]
        assert [r["max_tokens"] for r in server.requests] == [PAPER_OUTPUT] * len(originals)
    assert len(sent) == len(originals)
    for (task, idx), prompt in originals.items():
        first = prompt.encode("utf-8")[:PAPER_INPUT].decode("utf-8", errors="ignore")  # a split character dropped
        expected = first if (task, idx) in over else prompt
        assert expected in sent, (task, idx)
        row = predictions[(predictions.task == task) & (predictions.idx == idx)].iloc[0]
        assert row.prompt == prompt and bool(row.input_truncated) is ((task, idx) in over)  # whole: 2-1 reads it
        assert row.prompt_sent == expected if (task, idx) in over else pd.isna(row.prompt_sent)
        assert row.input_tokens == len(prompt.encode("utf-8")) and row.input_rule == f"{style} /tokenize"
    assert all(len(s.encode("utf-8")) <= PAPER_INPUT for s in sent)
    rule = {"max_input_tokens": PAPER_INPUT, "truncation": "right", "count": f"{style} /tokenize"}
    assert record["input_limit"] == rule  # run.json: the run id and the spec's keys
    assert record["max_new_tokens"] == PAPER_OUTPUT and record["decoding"]["max_tokens"] == PAPER_OUTPUT


def test_without_a_tokenizer_the_character_rule_cuts_and_the_limits_are_configurable(tmp_path, interim):
    # zero-shot 3-5 item 44 is the first prompt over 2,048 characters (2,115)
    originals = _originals(interim, ["3-5"], 45)
    long = originals[("3-5", 44)]
    assert len(long) == 2115 and all(len(p) <= PAPER_INPUT for k, p in originals.items() if k != ("3-5", 44))
    with FakeOpenAIServer(reply=lambda body: "刑期:12个月", owned_by="vllm") as server:  # no /tokenize: 404
        predictions, record = _run(tmp_path, interim, server, {"limit": 45, "tasks": ["3-5"]})
        sent = {r["messages"][-1]["content"] for r in server.requests}
        assert {r["max_tokens"] for r in server.requests} == {PAPER_OUTPUT}
    assert long[:PAPER_INPUT] in sent and long not in sent
    assert sent - {long[:PAPER_INPUT]} == set(originals.values()) - {long}
    cut = predictions[predictions.input_truncated]
    assert cut.idx.tolist() == [44] and cut.input_tokens.tolist() == [2115]
    assert cut.prompt.tolist() == [long] and cut.prompt_sent.tolist() == [long[:PAPER_INPUT]]
    assert set(predictions.input_rule) == {"characters"}
    assert record["input_limit"]["count"] == "characters"

    with FakeOpenAIServer(reply=lambda body: "刑期:12个月", owned_by="vllm") as server:
        lawbench = {"limit": 45, "tasks": ["3-5"], "max_input_tokens": None, "max_new_tokens": 256}
        (tmp_path / "whole").mkdir()
        predictions, record = _run(tmp_path / "whole", interim, server, lawbench)
        assert long in {r["messages"][-1]["content"] for r in server.requests}
        assert {r["max_tokens"] for r in server.requests} == {256}
    assert not predictions.input_truncated.any() and record["max_new_tokens"] == 256


@pytest.mark.parametrize(
    ("model", "temperature", "top_p"), [("openai/gpt-4-0613", 0.7, 1.0), ("hosted_vllm/qwen", 0.0, None)]
)
def test_protocol_paper_decodes_each_model_family_as_the_paper_did(model, temperature, top_p):
    """Under `protocol: paper` GPT-4 and ChatGPT sample at 0.7 (top_p 1) and open models are greedy, each with at
    most 1,024 new tokens, whatever the agent's own decoding said; under `ours` the agent's decoding stays."""
    from steps.lawbench.params import with_protocol
    from steps.llm import ModelConfig

    agent = ModelConfig(name="a", model=model, decoding={"temperature": 0.2, "max_tokens": 4096, "seed": 3})
    paper = with_protocol(agent, "paper").decoding
    assert (paper.temperature, paper.top_p, paper.max_tokens, paper.seed) == (temperature, top_p, PAPER_OUTPUT, 3)
    assert with_protocol(agent, "ours") is agent


def test_the_label_names_lawbench_settings_that_differ_from_the_paper():
    from steps.lawbench.params import LawBenchParams
    from steps.protocol import ProtocolRecord, settings_of

    def label(section: LawBenchParams, size: int = 10_000) -> str:
        return ProtocolRecord("paper", {}, section.PAPER, settings_of(section.model_dump(), section.PAPER), size).label

    assert label(LawBenchParams()) == "paper protocol"
    assert label(LawBenchParams(max_input_tokens=None, max_new_tokens=256), 40) == (
        "inputs sent whole, paper cut at 2048 tokens; new tokens 256, paper 1024; 40 of 10,000 items"
    )
    assert label(LawBenchParams(truncation="left")) == "left truncation, paper right"

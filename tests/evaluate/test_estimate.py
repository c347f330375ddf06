"""`jurisflow estimate` against hand-computed cases: LawBench with limit 1 for a priced API model (o200k_base
tokens plus OpenAI's chat overhead of 7 tokens for one user message, litellm's prices) and the dialogue bounds."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import tiktoken
import yaml

from flows.estimate import dialogue_bound, estimates, render
from flows.kit.config import load_params
from steps.lawbench.predict import prompt_text
from tests.helpers import write_lawbench_interim

# gpt-4o-mini in litellm's local price map (pinned with litellm): $0.15 / $0.60 per million tokens
IN, OUT = 0.15e-6, 0.60e-6


@pytest.fixture(scope="module")
def interim(mirror, manifest, tmp_path_factory) -> Path:
    return write_lawbench_interim(mirror, manifest, tmp_path_factory.mktemp("interim"))


def _params(tmp_path: Path, agents: dict, **sections):
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({"agents": agents, **sections}), encoding="utf-8")
    return load_params(path)


def test_lawbench_calls_tokens_and_cost_by_hand(tmp_path, interim):
    agents = {
        "mini": {"model": "openai/gpt-4o-mini", "decoding": {"max_tokens": 100}, "limit": 1, "benchmarks": ["lawbench"]}
    }
    rows = estimates(_params(tmp_path, agents), interim=interim)
    items = pd.read_parquet(interim / "lawbench_items.parquet")
    enc = tiktoken.get_encoding("o200k_base")
    assert [r.stage for r in rows] == ["lawbench_predict@mini-zero_shot", "lawbench_predict@mini-one_shot"]
    for row, setting in zip(rows, ("zero_shot", "one_shot"), strict=True):
        first = items[(items.setting == setting) & (items.idx == 0)]
        assert row.calls == len(first) == 20  # one item of each of the 20 tasks
        by_hand = sum(
            len(enc.encode(prompt_text(i, q))) + 7 for i, q in zip(first.instruction, first.question, strict=True)
        )
        assert row.input_tokens == by_hand
        assert row.output_tokens == 20 * 100
        assert row.cost_usd == pytest.approx(by_hand * IN + 2000 * OUT)
    total = render(rows)[-1]
    assert total[:3] == ["total", "", "40"] and total[5] == f"${rows[0].cost_usd + rows[1].cost_usd:,.4f}"


def test_unpriced_and_scripted_models(tmp_path, interim):
    agents = {
        "local": {
            "model": "hosted_vllm/qwen",
            "api_base": "http://127.0.0.1:9/v1",
            "limit": 1,
            "benchmarks": ["lawbench"],
        },
        "oracle": {"model": "scripted/oracle", "limit": 1, "benchmarks": ["lawbench"]},
    }
    rows = estimates(_params(tmp_path, agents), interim=interim)
    local = [r for r in rows if r.agent == "local"]
    assert all(r.cost_usd is None and r.output_tokens == 20 * 1024 for r in local)  # unknown price, assumed output
    assert "assumed 1024" in local[0].note
    assert all(r.cost_usd == 0.0 for r in rows if r.agent == "oracle")
    assert render(rows)[-1][6] == "priced rows only"


def test_dialogue_bounds(tmp_path):
    params = _params(
        tmp_path,
        {"a": {"model": "scripted/oracle", "limit": 2}},
        mile={"sample": 5, "max_turns": 4},
        j1={
            "instances": {"sizes": {"KQ": 3, "CR": 1}},
            "simulate": {"scenarios": ["KQ", "CR"], "max_turns": {"KQ": 6}},
        },
    )
    mile = dialogue_bound(params, "a", "mile")
    assert mile.calls == 2 * 5 and mile.input_tokens is None  # 2 dialogues × (4 turns + the complaint)
    j1 = dialogue_bound(params, "a", "j1", processed=tmp_path)  # no instances built: the configured sizes
    assert j1.calls == 2 * 6 + 1 * 35  # KQ: 2 of 3 instances × 6; CR: 1 × the paper's cap 35

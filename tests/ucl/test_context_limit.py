"""An agent whose dialogue outgrows its context ends that dialogue `context_exceeded`, the model's limit, and its
stage succeeds; a judge whose request outgrows its context is a failed call that fails its stage (issue 37, item 2).
Real stages against the test server with a small context (llama.cpp's `/props` and 400)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.kit.stage import run_stage
from flows.run import ucl_judge, ucl_reference, ucl_simulate
from tests.fake_openai_server import FakeOpenAIServer
from tests.ucl.test_failed_calls import _paths

pytestmark = pytest.mark.slow  # runs stages end to end: handed out before the quick modules

ADVICE = "您好，建议您先收集证据，再咨询律师。" * 20  # 360 characters a reply: the history grows fast
CONTEXT = 1000  # tokens, one a character: the agent's requests run from 76 to some 2,900 over three exchanges


def _params(tmp_path: Path, url: str, judge: dict) -> Path:
    doc = {
        "agents": {
            "local": {"model": "openai/test-model", "api_base": url, "decoding": {"max_tokens": 64}},
            "oracle": {"model": "scripted/oracle"},
        },
        "environment": {"model": "scripted/persona"},
        "judge": judge,
        "llm": {"cache_dir": str(tmp_path / "cache"), "backoff_base_s": 0.01, "backoff_max_s": 0.02},
        "ucl": {"limit": 1, "pointwise": False},
    }
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def test_an_agent_that_outgrows_its_context_ends_its_dialogues_there_and_the_stage_succeeds(
    tmp_path, ucl_items, capsys
):
    paths = _paths(tmp_path, ucl_items)
    with FakeOpenAIServer(reply=lambda body: ADVICE, context_size=CONTEXT) as server:
        params = _params(tmp_path, server.url, {"model": "scripted/judge"})
        assert run_stage("ucl_simulate", ucl_simulate, agent_name="local", params_file=params, paths=paths) == 0
        refused = server.faults_injected["context"]
    run = paths.run("ucl", "local")
    dialogues, usage = pd.read_parquet(run / "dialogues.parquet"), pd.read_parquet(run / "usage.parquet")
    turns = pd.read_parquet(run / "turns.parquet")
    at_limit = dialogues[dialogues.ended_by == "context_exceeded"]
    assert 0 < len(at_limit) == refused < len(dialogues)  # each refused request ended its dialogue, no retry
    assert dialogues.failure.isna().all()  # the model's limit, not a harness failure
    failed = usage[usage.failure_kind.notna()]
    assert failed.failure_kind.eq("context_exceeded").all() and failed.purpose.eq("agent").all()
    assert len(failed) == len(at_limit)
    last = turns[turns.instance_id.isin(at_limit.instance_id)].groupby("instance_id").tail(1)
    assert last.speaker.eq("assistant").all() and last.failure.str.startswith("context_exceeded: ").all()
    err = capsys.readouterr().err
    assert f"model's limit: {len(at_limit)} of the agent's calls were longer than its context" in err
    assert f"{len(at_limit)} at the assistant's context limit" in err


def test_a_judge_that_outgrows_its_context_fails_its_stage_and_says_what_to_change(tmp_path, ucl_items, capsys):
    paths = _paths(tmp_path, ucl_items)
    with FakeOpenAIServer(reply=lambda body: "[[2]]", context_size=CONTEXT) as server:
        judge = {"model": "openai/test-model", "api_base": server.url}
        params = _params(tmp_path, server.url, judge)
        assert run_stage("ucl_reference", ucl_reference, params_file=params, paths=paths) == 0
        assert run_stage("ucl_simulate", ucl_simulate, agent_name="oracle", params_file=params, paths=paths) == 0
        assert run_stage("ucl_judge", ucl_judge, agent_name="oracle", params_file=params, paths=paths) == 1
        refused = server.faults_injected["context"]
    usage = pd.read_parquet(paths.run("ucl", "oracle") / "judge_usage.parquet")
    failed = usage[usage.failure_kind.notna()]
    assert 0 < len(failed) == refused and failed.failure_kind.eq("context_exceeded").all()
    err = capsys.readouterr().err
    assert f"{len(failed)} of {len(usage)} model calls failed after retries (context_exceeded {len(failed)}" in err
    assert "context_exceeded: a rerun cannot fix it" in err and "--ctx-size" in err
    assert "rerun asks again" not in err

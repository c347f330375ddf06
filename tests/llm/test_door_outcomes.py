"""Issue 35 over HTTP: content filters whatever the text, replies cut at max_tokens (truncated answers, and cut-off
reasoning that holds none), a timeout on the whole call, connection errors that name the address, and bodies that
are not UTF-8."""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path

import pandas as pd
import pytest

from flows.kit.models import write_usage
from steps.llm import CallFailure, Completion, FailureKind, ModelConfig, ModelDoor
from steps.llm.cache import ResponseCache
from steps.llm.errors import address
from steps.llm.reasoning import split_reasoning, strip_reasoning
from steps.llm.shards import ShardLayer
from tests.fake_openai_server import REASONING, FakeOpenAIServer

HI = [{"role": "user", "content": "你好"}]
PROVIDERS = ["hosted_vllm/test-model", "openai/gpt-4o-2024-11-20"]


def run(coro):
    return asyncio.run(coro)


def cached_entries(cache_dir: str) -> int:
    cache = ResponseCache(Path(cache_dir))
    try:
        return len(cache)
    finally:
        cache.close()


# ---------------------------------------------------------------------------- item 2: content filters
@pytest.mark.parametrize("fault", ["filtered", "filtered_text", "filtered_empty"])
@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_content_filter_finish_is_a_failure_whatever_the_text(server, fast_settings, tmp_path, provider, fault):
    model = ModelConfig(name="m", model=provider, api_base=server.url)
    door = ModelDoor(fast_settings, run_id="t")
    server.inject((fault,))
    reply = run(door.complete(model, HI, purpose="agent"))
    assert isinstance(reply, CallFailure) and (reply.kind, reply.attempts) == (FailureKind.CONTENT_FILTER, 1), reply
    assert server.count == 1  # a provider's filter is deterministic: not retried
    usage = write_usage(door, tmp_path / "usage.parquet")
    assert usage[["failure_kind", "truncated"]].values.tolist() == [["content_filter", False]]
    assert pd.read_parquet(tmp_path / "call_cache.parquet").empty  # no answer in the stage's shard
    door.close()
    assert cached_entries(fast_settings.cache_dir) == 0  # nor in the response cache
    again = run(ModelDoor(fast_settings).complete(model, HI, purpose="agent"))
    assert again.ok and not again.cache_hit and again.text == "echo: 你好"


# ---------------------------------------------------------------------------- item 3: cut at max_tokens
@pytest.mark.parametrize("fault", ["think_cut", "think_only", "reasoning_only", "null_length"])
@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_reply_cut_off_before_any_answer_is_a_truncated_failure(server, fast_settings, tmp_path, provider, fault):
    model = ModelConfig(name="m", model=provider, api_base=server.url)
    door = ModelDoor(fast_settings, run_id="t")
    server.inject((fault,))
    reply = run(door.complete(model, HI, purpose="agent"))
    assert isinstance(reply, CallFailure) and (reply.kind, reply.attempts) == (FailureKind.TRUNCATED, 1), reply
    assert "max_tokens" in reply.message and server.count == 1
    if fault == "think_cut":
        assert "cut off inside its reasoning" in reply.message
    usage = write_usage(door, tmp_path / "usage.parquet")
    assert usage[["failure_kind", "truncated"]].values.tolist() == [["truncated", False]]
    door.close()
    assert cached_entries(fast_settings.cache_dir) == 0
    again = run(ModelDoor(fast_settings).complete(model, HI, purpose="agent"))
    assert again.ok and not again.cache_hit and not again.truncated


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_answer_cut_at_max_tokens_is_kept_marked_truncated_and_replayed_so(fast_settings, tmp_path, provider):
    with FakeOpenAIServer(reply=lambda body: "<think>先看时效</think>诉讼时效为三年，自") as server:
        model = ModelConfig(name="m", model=provider, api_base=server.url)
        door = ModelDoor(fast_settings, run_id="t")
        server.inject(("cut",))
        reply = run(door.complete(model, HI, purpose="agent"))
        assert isinstance(reply, Completion) and reply.truncated and reply.attempts == 1
        assert strip_reasoning(reply.text) == "诉讼时效为三年，自"
        usage = write_usage(door, tmp_path / "usage.parquet")
        door.close()
        assert usage.truncated.tolist() == [True] and usage.failure_kind.isna().all()
        assert pd.read_parquet(tmp_path / "call_cache.parquet").truncated.tolist() == [True]
        # replayed from the response cache, and from the stage's shard, still marked
        again = run(ModelDoor(fast_settings).complete(model, HI, purpose="agent"))
        assert again.cache_hit and again.truncated and again.text == reply.text
        fresh = fast_settings.model_copy(update={"cache_dir": str(tmp_path / "other")})
        shard = ModelDoor(fresh, shards=ShardLayer(lambda: [tmp_path / "call_cache.parquet"]))
        replayed = run(shard.complete(model, HI, purpose="agent"))
        assert replayed.cache_hit and replayed.truncated and shard.usage[-1].truncated
        assert server.count == 1


def test_an_answer_that_ends_by_itself_is_not_truncated(server, fast_settings, vllm_model):
    door = ModelDoor(fast_settings)
    reply = run(door.complete(vllm_model, HI, purpose="agent"))
    assert reply.ok and not reply.truncated and not door.usage[-1].truncated


def test_reasoning_only_with_stop_is_the_models_own_empty_answer(fast_settings):
    """Not a failure today: the readers find no answer in it (a dialogue ends on an empty reply). A later outcome
    `empty_answer` would be typed at the same place (steps/llm/errors.py: classify_reply)."""
    with FakeOpenAIServer(reply=lambda body: "<think>想一想</think>") as server:
        model = ModelConfig(name="m", model="hosted_vllm/test-model", api_base=server.url)
        reply = run(ModelDoor(fast_settings).complete(model, HI, purpose="agent"))
    assert isinstance(reply, Completion) and not reply.truncated and strip_reasoning(reply.text) == ""


@pytest.mark.parametrize(
    ("text", "reasoning", "answer", "cut_off"),
    [
        ("<think>甲</think>乙", "甲", "乙", False),
        ("<think>甲</think>乙<think>丙</think>丁", "甲\n\n丙", "乙丁", False),
        ("<think>甲", "甲", "", True),
        ("乙<think>甲", "甲", "乙", True),
        ("<think>甲</think>", "甲", "", False),
        ("甲</think>乙", "甲", "乙", False),  # the block opened in the prompt (the chat template)
        ("乙", "", "乙", False),
        (None, "", "", False),
    ],
)
def test_the_one_reasoning_rule(text, reasoning, answer, cut_off):
    split = split_reasoning(text)
    assert (split.reasoning, split.answer, split.cut_off) == (reasoning, answer, cut_off)
    assert split_reasoning("乙", REASONING) == split_reasoning(f"<think>{REASONING}</think>乙")


# ---------------------------------------------------------------------------- item 7: the whole call
@pytest.mark.parametrize("provider", PROVIDERS)
def test_timeout_bounds_the_whole_call_of_a_trickling_server(server, fast_settings, provider):
    """A body sent a few bytes at a time never trips a read timeout; timeout_s (1 s here) bounds each attempt."""
    model = ModelConfig(name="m", model=provider, api_base=server.url)
    door = ModelDoor(fast_settings.model_copy(update={"max_attempts": 2}))
    server.inject(("trickle", 4.0), ("trickle", 4.0))
    started = time.monotonic()
    reply = run(door.complete(model, HI, purpose="agent"))
    took = time.monotonic() - started
    assert isinstance(reply, CallFailure) and (reply.kind, reply.attempts) == (FailureKind.TIMEOUT, 2), reply
    assert "timeout_s 1" in reply.message
    assert took < 3.0, took  # two attempts of 1 s and a backoff, not two of 4 s
    server.inject(("trickle", 4.0))
    started = time.monotonic()
    retried = run(door.complete(model, [{"role": "user", "content": "again"}], purpose="agent"))
    assert retried.ok and retried.attempts == 2 and time.monotonic() - started < 2.5


def test_a_slow_trickle_within_the_timeout_is_an_answer(server, fast_settings, vllm_model):
    server.inject(("trickle", 0.5))
    reply = run(ModelDoor(fast_settings).complete(vllm_model, HI, purpose="agent"))
    assert reply.ok and reply.text == "echo: 你好" and reply.attempts == 1


# ---------------------------------------------------------------------------- item 9: connection errors
def _refusing_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # closed on return: connections to it are refused


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_refused_connection_names_the_address(fast_settings, provider):
    port = _refusing_port()
    model = ModelConfig(name="m", model=provider, api_base=f"http://127.0.0.1:{port}/v1")
    reply = run(ModelDoor(fast_settings).complete(model, HI, purpose="agent"))
    assert isinstance(reply, CallFailure) and (reply.kind, reply.attempts) == (FailureKind.SERVER, 4), reply
    assert reply.message.endswith(f"(cannot connect to http://127.0.0.1:{port}/v1)"), reply.message


def test_an_address_is_named_without_credentials():
    assert address("http://jf:sk-in-url-0123@10.0.0.5:8000/v1?api-key=sk-q#x") == "http://10.0.0.5:8000/v1"
    assert address("jf:sk-in-url-0123@not a url?key=1") == "not a url"


def test_a_server_that_answers_is_not_said_to_be_unreachable(server, fast_settings, vllm_model):
    server.inject(*[("drop",)] * 4)
    reply = run(ModelDoor(fast_settings).complete(vllm_model, HI, purpose="agent"))
    assert isinstance(reply, CallFailure) and reply.kind is FailureKind.SERVER
    assert "cannot connect" not in reply.message


def test_replicas_that_refuse_are_named(fast_settings):
    ports = [_refusing_port(), _refusing_port()]
    bases = [f"http://127.0.0.1:{p}/v1" for p in ports]
    model = ModelConfig(name="pool", model="hosted_vllm/test-model", api_base=bases)
    reply = run(ModelDoor(fast_settings).complete(model, HI, purpose="agent"))
    assert isinstance(reply, CallFailure) and f"cannot connect to {bases[0]}, {bases[1]}" in reply.message


# ---------------------------------------------------------------------------- item 13: not UTF-8
@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_body_that_is_not_utf8_is_typed_parse(server, fast_settings, provider):
    model = ModelConfig(name="m", model=provider, api_base=server.url)
    server.inject(*[("bad_utf8",)] * 4)
    reply = run(ModelDoor(fast_settings).complete(model, HI, purpose="agent"))
    assert isinstance(reply, CallFailure) and (reply.kind, reply.attempts) == (FailureKind.PARSE, 4), reply


# ---------------------------------------------------------------------------- caches written before the mark
def test_a_response_cache_and_a_shard_from_before_the_mark_still_answer(server, fast_settings, vllm_model, tmp_path):
    import sqlite3

    door = ModelDoor(fast_settings)
    made = run(door.complete(vllm_model, HI, purpose="agent"))
    write_usage(door, tmp_path / "usage.parquet")
    door.close()
    old = sqlite3.connect(tmp_path / "old.sqlite")  # the response table as it was, without `truncated`
    old.execute(
        "CREATE TABLE responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, text TEXT NOT NULL, prompt_tokens INTEGER"
        " NOT NULL, completion_tokens INTEGER NOT NULL, cost_usd REAL, latency_s REAL NOT NULL, created REAL NOT NULL)"
    )
    old.execute("INSERT INTO responses VALUES (?, 'm/x', 'old', 1, 1, NULL, 0.1, 0)", (made.call_key,))
    old.commit()
    old.close()
    (tmp_path / "old").mkdir()
    (tmp_path / "old.sqlite").rename(tmp_path / "old" / "responses.sqlite")
    cache = ResponseCache(tmp_path / "old")
    assert cache.get(made.call_key).text == "old" and not cache.get(made.call_key).truncated
    cache.close()
    shard = pd.read_parquet(tmp_path / "call_cache.parquet").drop(columns="truncated")
    shard.to_parquet(tmp_path / "old_shard.parquet")
    layer = ShardLayer(lambda: [tmp_path / "old_shard.parquet"])
    found = layer.get(made.call_key)
    assert found is not None and found[1].text == made.text and not found[1].truncated

"""The model door through litellm and real HTTP against the fault-injecting test server."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from steps.llm import CallFailure, Completion, Decoding, FailureKind, LLMSettings, ModelConfig, ModelDoor, Request
from tests.fake_openai_server import FakeOpenAIServer

HI = [{"role": "user", "content": "你好"}]


def run(coro):
    return asyncio.run(coro)


@pytest.mark.parametrize("fault", [("429", 0), ("500",), ("503",), ("malformed",), ("drop",), ("slow", 2.0)])
def test_transient_faults_are_retried_until_success(server, fast_settings, vllm_model, tmp_path, fault):
    # the 1 s timeout is the "slow" fault's; the others get a timeout a loaded machine cannot hit (an answer that
    # took over 1 s on a busy CI runner was retried once more)
    settings = fast_settings if fault[0] == "slow" else fast_settings.model_copy(update={"timeout_s": 60.0})
    door = ModelDoor(settings, run_id="t")
    server.inject(fault, fault)
    reply = run(door.complete(vllm_model, HI, purpose="agent"))
    assert isinstance(reply, Completion) and reply.text == "echo: 你好"
    assert reply.attempts == 3 and server.count == 3
    assert door.usage[-1].attempts == 3 and door.usage[-1].failure_kind is None


def test_retry_after_is_respected(server, fast_settings, vllm_model):
    door = ModelDoor(fast_settings, run_id="t")
    server.inject(("429", 1))
    started = time.monotonic()
    reply = run(door.complete(vllm_model, HI, purpose="agent"))
    assert reply.ok and reply.attempts == 2
    assert time.monotonic() - started >= 1.0  # the backoff alone would have waited ~0.01 s


@pytest.mark.parametrize(
    ("fault", "kind", "attempts"),
    [
        (("400",), FailureKind.BAD_REQUEST, 1),
        (("401",), FailureKind.AUTH, 1),
        (("filtered",), FailureKind.CONTENT_FILTER, 1),
        (("500",), FailureKind.SERVER, 4),
        (("429", 0), FailureKind.RATE_LIMIT, 4),
        (("slow", 2.0), FailureKind.TIMEOUT, 4),
        (("malformed",), FailureKind.PARSE, 4),
    ],
)
def test_permanent_faults_become_typed_failures(server, fast_settings, vllm_model, fault, kind, attempts):
    door = ModelDoor(fast_settings, run_id="t")
    server.inject(*[fault] * 4)
    reply = run(door.complete(vllm_model, HI, purpose="judge"))
    assert isinstance(reply, CallFailure)
    assert (reply.kind, reply.attempts) == (kind, attempts)
    assert reply.message and "\n" not in reply.message
    row = door.usage[-1]
    assert (row.failure_kind, row.attempts, row.purpose, row.cache_hit) == (kind.value, attempts, "judge", False)


def test_a_batch_never_raises_and_keeps_order(server, fast_settings, vllm_model):
    door = ModelDoor(fast_settings, run_id="t")
    server.inject(("400",))  # exactly one request fails permanently; which one depends on scheduling
    requests = [Request(vllm_model, [{"role": "user", "content": f"q{i}"}], purpose="agent") for i in range(20)]
    replies = run(door.complete_many(requests))
    assert len(replies) == 20 and sum(not r.ok for r in replies) == 1
    for i, r in enumerate(replies):
        assert not r.ok or r.text == f"echo: q{i}"
    failed = next(r for r in replies if not r.ok)
    assert failed.kind is FailureKind.BAD_REQUEST  # a failure, never an empty answer


def test_failures_are_not_cached(server, fast_settings, vllm_model):
    server.inject(("400",))
    first = run(ModelDoor(fast_settings).complete(vllm_model, HI, purpose="agent"))
    second = run(ModelDoor(fast_settings).complete(vllm_model, HI, purpose="agent"))
    assert not first.ok and second.ok and not second.cache_hit


def test_concurrency_bound_holds_per_endpoint(tmp_path):
    with FakeOpenAIServer(latency_s=0.05) as server:
        model = ModelConfig(name="m", model="hosted_vllm/test-model", api_base=server.url)
        door = ModelDoor(LLMSettings(concurrency=5, cache_dir=str(tmp_path / "c")))
        requests = [Request(model, [{"role": "user", "content": f"{i}"}], purpose="agent") for i in range(60)]
        replies = run(door.complete_many(requests))
    assert all(r.ok for r in replies)
    assert server.max_in_flight == 5


def test_a_model_can_raise_its_own_bound(tmp_path):
    with FakeOpenAIServer(latency_s=0.05) as server:
        model = ModelConfig(name="m", model="hosted_vllm/test-model", api_base=server.url, concurrency=12)
        door = ModelDoor(LLMSettings(concurrency=2, cache_dir=str(tmp_path / "c")))
        run(door.complete_many([Request(model, [{"role": "user", "content": f"{i}"}], purpose="a") for i in range(60)]))
    assert server.max_in_flight == 12


def test_a_call_starts_when_it_holds_its_slot_or_comes_from_the_cache(tmp_path):
    """`starters` hear of a call when it goes out holding one of the endpoint's slots (not while it waits for one)
    and when the cache answers it: with one slot and 0.2 s per answer, the second call starts after the first is
    back; on a rerun both start at once, from the cache."""
    events: list[tuple[str, str]] = []
    with FakeOpenAIServer(latency_s=0.2) as server:
        model = ModelConfig(name="m", model="hosted_vllm/test-model", api_base=server.url)
        door = ModelDoor(LLMSettings(concurrency=1, cache_dir=str(tmp_path / "c")))
        door.starters.append(lambda meta: events.append(("start", meta["instance_id"])))
        door.observers.append(lambda record: events.append(("done", record.metadata["instance_id"])))
        requests = [
            Request(model, [{"role": "user", "content": text}], purpose="agent", metadata={"instance_id": n})
            for n, text in (("1", "你好"), ("2", "再见"))
        ]
        run(door.complete_many(requests))
        assert events == [("start", "1"), ("done", "1"), ("start", "2"), ("done", "2")]
        events.clear()
        run(ModelDoor(LLMSettings(concurrency=1, cache_dir=str(tmp_path / "c"))).complete_many(requests))
        assert events == []  # a door with no starters tells nobody
        again = ModelDoor(LLMSettings(concurrency=1, cache_dir=str(tmp_path / "c")))
        again.starters.append(lambda meta: events.append(("start", meta["instance_id"])))
        run(again.complete_many(requests))
    assert events == [("start", "1"), ("start", "2")] and server.count == 2


def test_second_run_hits_the_cache_without_http(server, fast_settings, vllm_model):
    requests = [Request(vllm_model, [{"role": "user", "content": f"q{i}"}], purpose="agent") for i in range(10)]
    first = run(ModelDoor(fast_settings).complete_many(requests))
    assert server.count == 10
    door = ModelDoor(fast_settings, run_id="rerun")
    second = run(door.complete_many(requests))
    assert server.count == 10  # zero HTTP requests on the rerun
    assert [r.text for r in second] == [r.text for r in first]
    assert all(r.cache_hit and r.attempts == 0 for r in second)
    assert all(u.cache_hit and u.latency_s == 0.0 and u.prompt_tokens == 7 for u in door.usage)


def test_identical_concurrent_calls_share_one_request(server, fast_settings, vllm_model):
    door = ModelDoor(fast_settings)
    replies = run(door.complete_many([Request(vllm_model, HI, purpose="agent")] * 8))
    assert server.count == 1 and len({r.text for r in replies}) == 1
    assert sum(not r.cache_hit for r in replies) == 1 and len(door.usage) == 8


def test_decoding_params_reach_the_server_and_the_cache_key(server, fast_settings, vllm_model):
    door = ModelDoor(fast_settings)
    greedy = run(door.complete(vllm_model, HI, purpose="agent"))
    seeded_model = vllm_model.model_copy(update={"decoding": Decoding(temperature=0.7, seed=3, max_tokens=64)})
    seeded = run(door.complete(seeded_model, HI, purpose="agent"))
    assert server.count == 2 and greedy.call_key != seeded.call_key
    assert server.requests[0]["temperature"] == 0
    assert (server.requests[1]["temperature"], server.requests[1]["seed"], server.requests[1]["max_tokens"]) == (
        0.7,
        3,
        64,
    )


def test_accounting_rows_are_complete(server, fast_settings, vllm_model):
    door = ModelDoor(fast_settings, run_id="run-1")
    run(
        door.complete(
            vllm_model,
            HI,
            purpose="environment",
            metadata={"instance_id": "KQ/1", "role": "user", "secret_context": "x"},
        )
    )
    server.inject(("401",))
    run(door.complete(vllm_model, [{"role": "user", "content": "again"}], purpose="judge"))
    ok, failed = door.usage
    assert (ok.run_id, ok.purpose, ok.model_name, ok.model) == (
        "run-1",
        "environment",
        "local",
        "hosted_vllm/test-model",
    )
    assert (ok.prompt_tokens, ok.completion_tokens, ok.attempts, ok.cache_hit) == (7, len("echo: 你好"), 1, False)
    assert ok.latency_s > 0 and ok.cost_usd is None  # a self-hosted model has no price in litellm's map
    assert ok.metadata == {"instance_id": "KQ/1", "role": "user"}  # only the public keys are kept
    assert (failed.failure_kind, failed.completion_tokens, failed.cost_usd) == ("auth", 0, None)


def test_known_models_are_priced_from_litellms_map(server, fast_settings, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
    model = ModelConfig(name="gpt4o", model="openai/gpt-4o-2024-11-20", api_base=server.url)
    door = ModelDoor(fast_settings)
    reply = run(door.complete(model, HI, purpose="agent"))
    assert reply.ok and reply.cost_usd == pytest.approx(7 * 2.5e-06 + reply.completion_tokens * 1e-05)


def test_api_keys_are_sent_but_never_written(server, fast_settings, tmp_path, monkeypatch):
    secret = "sk-jurisflow-test-SECRET-4242424242"
    monkeypatch.setenv("MY_PROVIDER_API_KEY", secret)
    model = ModelConfig(
        name="api", model="openai/gpt-4o-2024-11-20", api_base=server.url, api_key_env="MY_PROVIDER_API_KEY"
    )
    door = ModelDoor(fast_settings, run_id="keys")
    run(door.complete(model, HI, purpose="agent"))
    server.inject(("401",))
    failure = run(door.complete(model, [{"role": "user", "content": "x"}], purpose="agent"))
    door.close()
    assert server.headers_seen[0]["Authorization"] == f"Bearer {secret}"
    assert not failure.ok and secret not in failure.message
    assert secret not in repr(door.usage)
    written = [p for p in Path(fast_settings.cache_dir).rglob("*") if p.is_file()]
    assert written and all(secret.encode() not in p.read_bytes() for p in written)


def test_replicas_are_load_balanced_and_share_cache_entries(fast_settings):
    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:
        model = ModelConfig(name="pool", model="hosted_vllm/test-model", api_base=[a.url, b.url])
        door = ModelDoor(fast_settings)
        replies = run(
            door.complete_many(
                [Request(model, [{"role": "user", "content": f"{i}"}], purpose="agent") for i in range(40)]
            )
        )
        assert all(r.ok for r in replies)
        assert a.count > 0 and b.count > 0 and a.count + b.count == 40
        swapped = model.model_copy(update={"api_base": [b.url, a.url]})
        again = run(ModelDoor(fast_settings).complete(swapped, [{"role": "user", "content": "0"}], purpose="agent"))
        assert again.cache_hit and a.count + b.count == 40


def test_one_door_serves_several_event_loops(fast_settings):
    """Flows may call asyncio.run more than once with the same door: bounds must not stay on the first loop."""
    door = ModelDoor(fast_settings)
    with FakeOpenAIServer(latency_s=0.05) as slow:
        one_at_a_time = ModelConfig(name="x", model="hosted_vllm/test-model", api_base=slow.url, concurrency=1)
        for round_ in range(3):  # with concurrency 1, calls wait on the bound
            requests = [
                Request(one_at_a_time, [{"role": "user", "content": f"{round_} {i}"}], purpose="agent")
                for i in range(4)
            ]
            replies = asyncio.run(door.complete_many(requests))
            assert all(r.ok for r in replies), [r.message for r in replies if not r.ok]
    door.close()

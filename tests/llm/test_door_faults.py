"""Issue 17 over HTTP: null content is never an answer, malformed bodies are `parse`, keys go only where
they belong and never into what the door writes, 401/403 are `auth` and not retried."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from flows.kit.models import write_usage
from steps.llm import CallFailure, Completion, FailureKind, LLMSettings, ModelConfig, ModelDoor, Request
from steps.llm.cache import ResponseCache
from steps.llm.secrets import NO_KEY, MissingApiKeyError, check_api_keys
from tests.fake_openai_server import RANDOM_MIX, FakeOpenAIServer

HI = [{"role": "user", "content": "你好"}]
# A variable named like no secret (no *_API_KEY/*_TOKEN suffix): only knowing what the door sent redacts it.
ODD_KEY_VAR = "JF_LOCAL_LLM_PASS"
ODD_SECRET = "opaque-credential-7f3a9c1e5b"
# What the random mix of the test server can make a call end as.
INJECTABLE_KINDS = {
    FailureKind.RATE_LIMIT,
    FailureKind.SERVER,
    FailureKind.PARSE,
    FailureKind.CONTENT_FILTER,
    FailureKind.TRUNCATED,
    FailureKind.NULL_CONTENT,
}


def run(coro):
    return asyncio.run(coro)


def cached_entries(settings: LLMSettings) -> int:
    cache = ResponseCache(Path(settings.cache_dir))
    try:
        return len(cache)
    finally:
        cache.close()


# ---------------------------------------------------------------------------- null content (item 2)
@pytest.mark.parametrize(
    ("fault", "kind"),
    [(("null_length",), FailureKind.TRUNCATED), (("filtered",), FailureKind.CONTENT_FILTER)],
)
@pytest.mark.parametrize("provider", ["hosted_vllm/test-model", "openai/gpt-4o-2024-11-20"])
def test_null_content_that_would_repeat_is_a_failure_tried_once_and_never_cached(
    server, fast_settings, tmp_path, fault, kind, provider
):
    model = ModelConfig(name="local", model=provider, api_base=server.url)
    door = ModelDoor(fast_settings, run_id="t")
    server.inject(fault)
    reply = run(door.complete(model, HI, purpose="agent"))
    assert isinstance(reply, CallFailure) and (reply.kind, reply.attempts) == (kind, 1)
    assert server.count == 1  # deterministic: the same parameters would get the same refusal or truncation
    assert write_usage(door, tmp_path / "usage.parquet").failure_kind.tolist() == [kind.value]  # schema-valid
    door.close()
    assert cached_entries(fast_settings) == 0
    again = run(ModelDoor(fast_settings).complete(model, HI, purpose="agent"))  # the server answers now
    assert again.ok and not again.cache_hit and again.text == "echo: 你好"


def test_null_content_for_another_reason_is_retried(server, fast_settings, vllm_model):
    door = ModelDoor(fast_settings)
    server.inject(("null_stop",), ("null_stop",))
    reply = run(door.complete(vllm_model, HI, purpose="agent"))
    assert isinstance(reply, Completion) and reply.text == "echo: 你好" and reply.attempts == 3
    server.inject(*[("null_stop",)] * 4)
    failed = run(door.complete(vllm_model, [{"role": "user", "content": "x"}], purpose="agent"))
    assert isinstance(failed, CallFailure) and (failed.kind, failed.attempts) == (FailureKind.NULL_CONTENT, 4)
    door.close()
    assert cached_entries(fast_settings) == 1  # only the answer


def test_an_empty_string_with_stop_is_the_models_own_answer(server, fast_settings, vllm_model):
    server.inject(("empty_stop",))
    first = run(ModelDoor(fast_settings).complete(vllm_model, HI, purpose="agent"))
    assert isinstance(first, Completion) and first.text == "" and first.attempts == 1
    second = run(ModelDoor(fast_settings).complete(vllm_model, HI, purpose="agent"))
    assert second.cache_hit and second.text == "" and server.count == 1


# ---------------------------------------------------------------------------- malformed bodies (item 6a)
@pytest.mark.parametrize("provider", ["hosted_vllm/test-model", "openai/gpt-4o-2024-11-20"])
@pytest.mark.parametrize("fault", ["malformed", "malformed_truncated", "malformed_html", "malformed_shape"])
def test_a_body_that_is_not_a_completion_is_typed_parse_and_retried(server, fast_settings, provider, fault):
    model = ModelConfig(name="m", model=provider, api_base=server.url)
    door = ModelDoor(fast_settings)
    server.inject(*[(fault,)] * 4)
    reply = run(door.complete(model, HI, purpose="agent"))
    assert isinstance(reply, CallFailure) and (reply.kind, reply.attempts) == (FailureKind.PARSE, 4), reply
    server.inject((fault,))
    recovered = run(door.complete(model, [{"role": "user", "content": "again"}], purpose="agent"))
    assert recovered.ok and recovered.attempts == 2


@pytest.mark.parametrize("status", ["500", "502", "503"])
def test_server_errors_stay_server(server, fast_settings, status):
    model = ModelConfig(name="m", model="openai/gpt-4o-2024-11-20", api_base=server.url)
    server.inject(*[(status,)] * 4)
    reply = run(ModelDoor(fast_settings).complete(model, HI, purpose="agent"))
    assert isinstance(reply, CallFailure) and (reply.kind, reply.attempts) == (FailureKind.SERVER, 4)


# ---------------------------------------------------------------------------- secrets (item 3)
@pytest.mark.parametrize("status", ["401", "403"])
@pytest.mark.parametrize("provider", ["hosted_vllm/test-model", "openai/gpt-4o-2024-11-20"])
def test_an_echoed_key_from_any_variable_is_redacted_and_auth_is_not_retried(
    server, fast_settings, tmp_path, monkeypatch, status, provider
):
    monkeypatch.setenv(ODD_KEY_VAR, ODD_SECRET)
    model = ModelConfig(name="local", model=provider, api_base=server.url, api_key_env=ODD_KEY_VAR)
    door = ModelDoor(fast_settings, run_id="keys")
    server.inject(*[(status,)] * 4)
    reply = run(door.complete(model, HI, purpose="agent"))
    assert server.headers_seen[0]["Authorization"] == f"Bearer {ODD_SECRET}"  # the server did echo it back
    assert isinstance(reply, CallFailure) and (reply.kind, reply.attempts) == (FailureKind.AUTH, 1)
    assert server.count == 1
    assert ODD_SECRET not in reply.message and "***" in reply.message
    assert ODD_SECRET not in repr(door.usage)
    usage = write_usage(door, tmp_path / "usage.parquet")
    door.close()
    assert usage.failure_kind.tolist() == ["auth"]
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written and [p for p in written if ODD_SECRET.encode() in p.read_bytes()] == []


def test_a_key_echoed_into_an_answer_is_neither_returned_nor_cached(fast_settings, monkeypatch):
    monkeypatch.setenv(ODD_KEY_VAR, ODD_SECRET)
    with FakeOpenAIServer(reply=lambda body: f"you sent {ODD_SECRET}") as server:
        model = ModelConfig(name="local", model="hosted_vllm/test-model", api_base=server.url, api_key_env=ODD_KEY_VAR)
        door = ModelDoor(fast_settings)
        reply = run(door.complete(model, HI, purpose="agent"))
        door.close()
    assert reply.ok and reply.text == "you sent ***"
    written = [p for p in Path(fast_settings.cache_dir).rglob("*") if p.is_file()]
    assert written and [p for p in written if ODD_SECRET.encode() in p.read_bytes()] == []


def test_litellm_log_records_are_redacted(caplog):
    import logging

    from steps.llm.secrets import remember_secret

    ModelDoor(LLMSettings(cache=False))  # installs the filters
    remember_secret("zz-logged-key-0043")
    with caplog.at_level(logging.ERROR, logger="LiteLLM"):
        logging.getLogger("LiteLLM").error("upstream refused the key %s", "zz-logged-key-0043")
    assert caplog.records and all("zz-logged-key-0043" not in r.getMessage() for r in caplog.records)
    assert "refused the key ***" in caplog.text


def test_a_failure_built_anywhere_is_redacted(monkeypatch):
    """Callers that build their own CallFailure (e.g. from a reply) cannot carry a sent key either."""
    from steps.llm.secrets import remember_secret

    remember_secret("zz-sent-key-0042")
    failure = CallFailure(FailureKind.SERVER, "upstream said: zz-sent-key-0042 is wrong", "m/x", "k", 1)
    assert failure.message == "upstream said: *** is wrong"


@pytest.mark.parametrize("provider", ["openai/gpt-4o-2024-11-20", "hosted_vllm/test-model"])
def test_a_server_without_api_key_env_gets_no_real_key(server, fast_settings, monkeypatch, provider):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-openai-key-0123456789")
    monkeypatch.setenv("HOSTED_VLLM_API_KEY", "real-vllm-key-0123456789")
    model = ModelConfig(name="local", model=provider, api_base=server.url)
    reply = run(ModelDoor(fast_settings).complete(model, HI, purpose="agent"))
    assert reply.ok
    assert server.headers_seen[0].get("Authorization") == f"Bearer {NO_KEY}"


def test_replicas_get_their_own_key_or_none(fast_settings, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-openai-key-0123456789")
    monkeypatch.setenv(ODD_KEY_VAR, ODD_SECRET)
    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:
        keyless = ModelConfig(name="pool", model="openai/gpt-4o-2024-11-20", api_base=[a.url, b.url])
        keyed = keyless.model_copy(update={"name": "keyed", "api_key_env": ODD_KEY_VAR})
        door = ModelDoor(fast_settings)
        requests = [Request(keyless, [{"role": "user", "content": f"{i}"}], purpose="agent") for i in range(6)]
        requests += [Request(keyed, [{"role": "user", "content": f"k{i}"}], purpose="agent") for i in range(6)]
        assert all(r.ok for r in run(door.complete_many(requests)))
        by_prompt = {
            body["messages"][-1]["content"]: headers.get("Authorization")
            for s in (a, b)
            for body, headers in zip(s.requests, s.headers_seen, strict=True)
        }
    assert {by_prompt[f"{i}"] for i in range(6)} == {f"Bearer {NO_KEY}"}
    assert {by_prompt[f"k{i}"] for i in range(6)} == {f"Bearer {ODD_SECRET}"}


def test_an_unset_key_variable_is_an_error_before_any_call(server, fast_settings, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-openai-key-0123456789")
    monkeypatch.delenv("JF_UNSET_PROVIDER_KEY", raising=False)
    model = ModelConfig(
        name="deepseek_v3", model="openai/gpt-4o-2024-11-20", api_base=server.url, api_key_env="JF_UNSET_PROVIDER_KEY"
    )
    door = ModelDoor(fast_settings)
    with pytest.raises(MissingApiKeyError, match=r"'deepseek_v3'.*JF_UNSET_PROVIDER_KEY.*not set"):
        run(door.complete(model, HI, purpose="agent"))
    with pytest.raises(MissingApiKeyError, match="deepseek_v3"):
        run(door.complete_many([Request(model, [{"role": "user", "content": f"{i}"}], purpose="a") for i in range(3)]))
    assert server.count == 0
    with pytest.raises(MissingApiKeyError, match=r"'deepseek_v3'.*JF_UNSET_PROVIDER_KEY") as err:
        check_api_keys([ModelConfig(name="ok", model="scripted/oracle"), model])
    assert "\n" not in str(err.value)


def test_mixed_random_faults_lose_nothing_and_a_rerun_calls_only_what_failed(fast_settings):
    """A small soak: 80 calls at 30 % mixed faults, then a rerun against a clean server."""
    mix = [f for f in RANDOM_MIX if f[0] != "slow"]  # timeouts are covered above; they would only add seconds
    with FakeOpenAIServer() as server:
        model = ModelConfig(name="m", model="hosted_vllm/test-model", api_base=server.url)
        requests_ = [Request(model, [{"role": "user", "content": f"q{i}"}], purpose="agent") for i in range(80)]
        server.inject_random(0.3, seed=17, mix=mix)
        door = ModelDoor(fast_settings.model_copy(update={"max_attempts": 2}))
        first = run(door.complete_many(requests_))
        door.close()
        injected = sum(server.faults_injected.values())
        server.inject_random(0.0)
        rerun_door = ModelDoor(fast_settings)
        second = run(rerun_door.complete_many(requests_))
        rerun_door.close()
    failed = [i for i, r in enumerate(first) if not r.ok]
    assert injected > 0 and failed  # with 2 attempts at 30 %, some calls fail for good
    assert all(r.text == f"echo: q{i}" for i, r in enumerate(first) if r.ok)  # no failure became an answer
    assert {r.kind for r in first if not r.ok} <= INJECTABLE_KINDS
    assert [r.text for r in second] == [f"echo: q{i}" for i in range(80)]
    assert [i for i, r in enumerate(second) if not r.cache_hit] == failed  # the rerun calls only what failed

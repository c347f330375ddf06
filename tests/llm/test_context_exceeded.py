"""A request longer than the model's context (issue 37, item 2): its own failure kind, `context_exceeded`, tried once,
whose message says that a rerun cannot fix it and what to change; other failures a rerun meets again say so too (the
door's messages and a failing stage's last line), over real HTTP against the test server's small context."""

from __future__ import annotations

import asyncio

import litellm
import pandas as pd
import pytest

from flows.kit.config import Params
from flows.kit.models import check_calls
from flows.kit.stage import CallsFailed
from steps.llm import CallFailure, Decoding, FailureKind, ModelConfig, ModelDoor
from steps.llm.errors import classify
from tests.fake_openai_server import FakeOpenAIServer

REMEDIES = ("a rerun cannot fix it", "max_tokens", "--ctx-size", "--max-model-len", "--limit")
LONG = [{"role": "user", "content": "案情" * 60}]  # 120 characters: over a 64-token context
SHORT = [{"role": "user", "content": "你好"}]


def _says_what_to_change(message: str) -> bool:
    return all(r in message for r in REMEDIES)


def test_litellm_s_context_window_error_is_its_own_kind_not_retried():
    exc = litellm.ContextWindowExceededError(
        "the request exceeds the available context size, try increasing it", model="m", llm_provider="openai"
    )
    c = classify(exc)
    assert (c.kind, c.retryable) == (FailureKind.CONTEXT_EXCEEDED, False)
    assert "exceeds the available context size" in c.message and _says_what_to_change(c.message)
    assert "rerun asks again" not in c.message


@pytest.mark.parametrize(
    "text",
    [
        "the request exceeds the available context size, try increasing it",  # llama.cpp
        "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens",  # vLLM
    ],
)
def test_a_400_that_says_too_long_is_context_exceeded_whatever_class_carries_it(text):
    c = classify(litellm.APIError(400, text, llm_provider="hosted_vllm", model="m"))
    assert (c.kind, c.retryable) == (FailureKind.CONTEXT_EXCEEDED, False) and _says_what_to_change(c.message)
    # a server error that mentions the context is still a server error, retried
    assert classify(litellm.APIError(500, text, llm_provider="hosted_vllm", model="m")).kind is FailureKind.SERVER


def test_other_failures_a_rerun_meets_again_say_so_and_transient_ones_do_not():
    bad = classify(litellm.BadRequestError("unknown parameter 'foo'", model="m", llm_provider="openai"))
    assert bad.kind is FailureKind.BAD_REQUEST and "a rerun cannot fix it" in bad.message
    auth = classify(litellm.AuthenticationError("invalid key", model="m", llm_provider="openai"))
    assert auth.kind is FailureKind.AUTH and "a rerun cannot fix it" in auth.message and "api_key_env" in auth.message
    busy = classify(litellm.APIError(503, "overloaded", llm_provider="openai", model="m"))
    assert busy.retryable and "rerun" not in busy.message


@pytest.mark.parametrize("style", ["llama.cpp", "vllm"])
@pytest.mark.parametrize("provider", ["openai/test-model", "hosted_vllm/test-model"])
def test_a_server_with_a_small_context_refuses_a_long_request_once(tmp_path, style, provider):
    from steps.llm import LLMSettings

    settings = LLMSettings(backoff_base_s=0.01, backoff_max_s=0.02, max_attempts=4, cache_dir=str(tmp_path / "c"))
    with FakeOpenAIServer(context_size=64, context_style=style) as server:
        model = ModelConfig(name="local", model=provider, api_base=server.url, decoding=Decoding(max_tokens=16))
        door = ModelDoor(settings, run_id="t")
        long, short = asyncio.run(_both(door, model))
        door.close()
        assert server.count == 2 and server.faults_injected["context"] == 1  # the long one was sent once
    assert isinstance(long, CallFailure) and (long.kind, long.attempts) == (FailureKind.CONTEXT_EXCEEDED, 1)
    assert _says_what_to_change(long.message)
    assert short.ok  # the same server answers what fits
    assert door.usage[0].failure_kind == "context_exceeded"


async def _both(door: ModelDoor, model: ModelConfig):
    return await door.complete(model, LONG, purpose="agent"), await door.complete(model, SHORT, purpose="agent")


def _usage(kinds: list[str | None]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "call_key": [f"k{i}" for i in range(len(kinds))],
            "failure_kind": kinds,
            "failure_message": [k and f"{k}: boom" for k in kinds],
        }
    )


def test_a_failing_stage_says_which_failures_a_rerun_cannot_fix():
    params = Params.model_validate({})
    with pytest.raises(CallsFailed) as caught:
        check_calls(params, _usage([None, "context_exceeded", "server"]))
    said = str(caught.value)
    assert "a rerun asks again only the failed calls (server may pass then)" in said
    assert "context_exceeded: a rerun cannot fix it" in said and "--ctx-size" in said
    with pytest.raises(CallsFailed) as caught:
        check_calls(params, _usage([None, "context_exceeded"]))
    assert "rerun asks again" not in str(caught.value) and "retries only" not in str(caught.value)


def test_the_agent_s_calls_at_its_context_limit_are_no_failures(capsys):
    params = Params.model_validate({})
    usage = _usage([None, "context_exceeded", None])
    check_calls(params, usage, limits=["k1"])  # the call that ended a dialogue as the model's limit
    err = capsys.readouterr().err
    assert "model's limit: 1 of the agent's calls were longer than its context" in err
    with pytest.raises(CallsFailed):  # the same row, not named a limit (an environment role's, a judge's)
        check_calls(params, usage)

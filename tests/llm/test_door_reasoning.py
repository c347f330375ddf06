"""Issue 38 item 5 at the door: every reply is split once into its answer and its reasoning trace
(steps/llm/reasoning.py `separate`), whatever form the trace takes (`<think>` blocks in the text, a block the chat
template opened, litellm's `reasoning_content` field); the answer is `Completion.text`, the trace
`Completion.reasoning`, both replayed from the cache and from a stage's shard; a reply that is only a trace and
ended by itself is an empty answer (`outcome` `empty_answer`), one cut at max_tokens a `truncated` failure."""

from __future__ import annotations

import asyncio

import pandas as pd
import pytest

from flows.kit.models import write_usage
from steps.llm import EMPTY_ANSWER, Completion, FailureKind, ModelConfig, ModelDoor, outcome, reasoning_of
from steps.llm.reasoning import separate, with_reasoning
from steps.llm.shards import ShardLayer
from tests.fake_openai_server import REASONING, FakeOpenAIServer

HI = [{"role": "user", "content": "你好"}]
PROVIDERS = ["hosted_vllm/test-model", "openai/gpt-4o-2024-11-20"]
TRACE = "选项B看起来也对，但是C更好？不，应当选A。"
ANSWER = "正确答案:A。"


def run(coro):
    return asyncio.run(coro)


# ---------------------------------------------------------------------------- the one function
@pytest.mark.parametrize(
    ("text", "field", "answer", "trace"),
    [
        ("  答案A\n", None, "  答案A\n", ""),  # no trace: the text unchanged, not even stripped
        ("", None, "", ""),
        (f"<think>{TRACE}</think>\n\n{ANSWER}", None, ANSWER, TRACE),
        (f"<think>一</think>{ANSWER}<think>二</think>", None, ANSWER, "一\n\n二"),
        (f"{TRACE}</think>{ANSWER}", None, ANSWER, TRACE),  # the chat template opened the block
        (f"{ANSWER}<think>{TRACE}", None, ANSWER, TRACE),  # unclosed: reasoning to the end
        (f"\n{ANSWER}", TRACE, ANSWER, TRACE),  # litellm's reasoning_content field
        (f"<think>{TRACE}</think>", None, "", TRACE),  # only a trace: an empty answer
        ("", TRACE, "", TRACE),
    ],
)
def test_separate_gives_the_answer_and_the_trace(text, field, answer, trace):
    assert separate(text, field) == (answer, trace)
    assert separate(with_reasoning(text, field)) == (answer, trace)  # what the cache stores splits the same


def test_outcome_kinds_of_a_completion():
    def reply(text: str, trace: str = "") -> Completion:
        return Completion(text, "m", "k", 1, 1, 0.0, 0.0, 1, False, reasoning=trace)

    assert (outcome(reply(ANSWER, TRACE)), reasoning_of(reply(ANSWER, TRACE))) == (None, TRACE)
    assert (outcome(reply("", TRACE)), reasoning_of(reply("", TRACE))) == (EMPTY_ANSWER, TRACE)
    assert (outcome(reply(" \n")), reasoning_of(reply(" \n"))) == (EMPTY_ANSWER, None)
    assert reasoning_of(reply(ANSWER)) is None


# ---------------------------------------------------------------------------- over HTTP, through the cache
FORMS = {
    "think": (lambda body: f"<think>{TRACE}</think>\n\n{ANSWER}", None),
    "opened_by_template": (lambda body: f"{TRACE}</think>\n\n{ANSWER}", None),
    "reasoning_content": (lambda body: ANSWER, lambda body: TRACE),
}


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_door_returns_the_answer_and_keeps_the_trace(fast_settings, tmp_path, provider, form):
    reply_fn, field_fn = FORMS[form]
    with FakeOpenAIServer(reply=reply_fn, reasoning=field_fn) as server:
        model = ModelConfig(name="m", model=provider, api_base=server.url)
        door = ModelDoor(fast_settings, run_id="t")
        reply = run(door.complete(model, HI, purpose="agent"))
        assert isinstance(reply, Completion) and (reply.text, reply.reasoning) == (ANSWER, TRACE), reply
        assert outcome(reply) is None
        write_usage(door, tmp_path / "usage.parquet")  # writes the stage's shard (call_cache.parquet) beside it
        door.close()
        again = run(ModelDoor(fast_settings).complete(model, HI, purpose="agent"))
        assert again.cache_hit and (again.text, again.reasoning) == (ANSWER, TRACE)
        assert server.count == 1
    shard = ShardLayer(lambda: [tmp_path / "call_cache.parquet"])
    found = shard.get(reply.call_key)
    assert found is not None and separate(found[1].text) == (ANSWER, TRACE)  # another clone replays both


@pytest.mark.parametrize("fault", ["think_stop", "reasoning_stop"])
@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_reply_that_is_only_a_trace_is_an_empty_answer(server, fast_settings, provider, fault):
    model = ModelConfig(name="m", model=provider, api_base=server.url)
    door = ModelDoor(fast_settings, run_id="t")
    server.inject((fault,))
    reply = run(door.complete(model, HI, purpose="agent"))
    assert isinstance(reply, Completion) and reply.attempts == 1, reply  # the model's own answer: not retried
    assert (reply.text, outcome(reply)) == ("", EMPTY_ANSWER)
    trace = REASONING if fault == "reasoning_stop" else "用户问的是合同纠纷，先看诉讼时效。"
    assert reply.reasoning == trace
    door.close()


@pytest.mark.parametrize("fault", ["think_only", "reasoning_only"])
def test_a_trace_cut_at_max_tokens_stays_a_truncated_failure(server, fast_settings, tmp_path, fault):
    model = ModelConfig(name="m", model="hosted_vllm/test-model", api_base=server.url)
    door = ModelDoor(fast_settings, run_id="t")
    server.inject((fault,))
    reply = run(door.complete(model, HI, purpose="agent"))
    assert not reply.ok and reply.kind is FailureKind.TRUNCATED and outcome(reply) == "truncated"
    usage = write_usage(door, tmp_path / "usage.parquet")
    assert usage.failure_kind.tolist() == ["truncated"]
    assert pd.read_parquet(tmp_path / "call_cache.parquet").empty
    door.close()

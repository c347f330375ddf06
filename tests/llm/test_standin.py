"""The stand-in door: who answers which call, the call keys and tokens it records, and failures as the door has them."""

from __future__ import annotations

import asyncio

import litellm

from steps.llm import CallFailure, Completion, ModelConfig, register_policy
from steps.llm.cache import call_key
from steps.llm.scripted import policy_fingerprint
from steps.llm.standin import StandInDoor, TokenCounter

MINI = ModelConfig(name="mini", model="openai/gpt-4o-mini", api_base="http://127.0.0.1:9/v1")
ORACLE = ModelConfig(name="oracle", model="scripted/oracle")


def _said(request) -> str:
    return f"{request.model}:{request.metadata.get('n', '')}"


register_policy("oracle", "standin-test", _said)
register_policy("persona", "standin-test", _said)


def test_a_long_conversation_counts_as_litellm_counts_it_whole():
    long = "原告诉称，被告未按合同约定支付货款。" * 200  # over 1,024 characters: litellm counts it in pieces
    messages = [
        {"role": "system", "content": "你是一名律师。"},
        {"role": "user", "content": long},
        {"role": "assistant", "content": "请提供合同。"},
        {"role": "user", "content": long + "合同在此。"},
    ]
    counter = TokenCounter(MINI.model)
    for upto in range(1, len(messages) + 1):  # the history grows; each message is counted once
        assert counter.prompt(messages[:upto]) == litellm.token_counter(model="gpt-4o-mini", messages=messages[:upto])
    assert counter.text(long) == litellm.token_counter(model="gpt-4o-mini", text=long)
    assert TokenCounter("scripted/oracle").prompt(messages) == sum(len(m["content"]) for m in messages)


def test_real_models_are_answered_by_the_stand_in_of_their_purpose_and_scripted_ones_by_themselves():
    door = StandInDoor(stage="s")
    messages = [{"role": "user", "content": "问"}]
    meta = {"scenario": "standin-test", "n": 1}
    agent = asyncio.run(door.complete(MINI, messages, purpose="agent", metadata=meta))
    environment = asyncio.run(door.complete(MINI, messages, purpose="environment", metadata=meta))
    itself = asyncio.run(door.complete(ORACLE, messages, purpose="environment", metadata=meta))
    assert [r.text for r in (agent, environment, itself)] == ["oracle:1", "persona:1", "oracle:1"]
    assert all(isinstance(r, Completion) for r in (agent, environment, itself))
    # keys as the door makes them: a real model's from the messages, a scripted one's with metadata and policy
    assert agent.call_key == call_key(MINI, messages)
    policy = policy_fingerprint("oracle", "standin-test")
    assert itself.call_key == call_key(ORACLE, messages, {**meta, "_policy": policy})
    first = door.sent[0]
    assert (first.stage, first.purpose, first.model, first.stand_in) == ("s", "agent", MINI.model, "scripted/oracle")
    assert first.input_tokens == litellm.token_counter(model="gpt-4o-mini", messages=messages)
    assert first.output_tokens == litellm.token_counter(model="gpt-4o-mini", text="oracle:1")


def test_a_stand_in_that_cannot_answer_is_a_failed_call_and_a_function_can_stand_in():
    door = StandInDoor(stand_ins={"agent": lambda request: "好的。"})
    messages = [{"role": "user", "content": "问"}]
    failed = asyncio.run(door.complete(ORACLE, messages, purpose="agent", metadata={"scenario": "nowhere"}))
    assert isinstance(failed, CallFailure) and failed.kind.value == "bad_request" and door.sent[0].failed
    answered = asyncio.run(door.complete(MINI, messages, purpose="agent"))
    assert answered.text == "好的。" and door.sent[1].stand_in == "<lambda>"


def test_the_real_model_like_filler_answers_nothing_at_the_agents_reply_length():
    from steps.llm.standin import ASSUMED_REPLY_TOKENS, FILLER_UNIT, REAL_LIKE

    capped = MINI.model_copy(update={"decoding": MINI.decoding.model_copy(update={"max_tokens": 200})})
    door = StandInDoor(dict(REAL_LIKE), stage="s", prompt_ratios={(MINI.model, "http://127.0.0.1:9/v1"): 1.5})
    messages = [{"role": "user", "content": "请问劳动合同解除后如何计算经济补偿？"}]
    meta = {"scenario": "standin-test", "instance_id": "i1"}
    reply = asyncio.run(door.complete(capped, messages, purpose="agent", metadata=meta))
    assert isinstance(reply, Completion) and reply.completion_tokens == 200  # as a server reports a reply cut there
    assert set(reply.text) <= set(FILLER_UNIT) and "<" not in reply.text  # no end marker, no answer
    assert abs(TokenCounter(MINI.model).text(reply.text) - 200) <= 20  # its history weighs what it says
    counted = litellm.token_counter(model="gpt-4o-mini", messages=messages)
    assert reply.prompt_tokens == round(counted * 1.5)  # the calibration's ratio of the server's count to ours
    sent = door.sent[0]
    assert (sent.stand_in, sent.item, sent.api_base) == ("real-model-like filler", "i1", "http://127.0.0.1:9/v1")
    # no max_tokens: the assumed length; a measured mean reply length wins, capped by max_tokens
    assert door.reply_length(MINI) == ASSUMED_REPLY_TOKENS
    door.reply_tokens[MINI.model] = 80
    assert door.reply_length(MINI) == 80 and door.reply_length(capped) == 80
    door.reply_tokens[MINI.model] = 500
    assert door.reply_length(capped) == 200
    # the environment and the judge keep their scripted stand-ins; a scripted agent answers for itself
    environment = asyncio.run(
        door.complete(MINI, messages, purpose="environment", metadata={"scenario": "standin-test"})
    )
    itself = asyncio.run(
        door.complete(ORACLE, messages, purpose="agent", metadata={"scenario": "standin-test", "n": 2})
    )
    assert [r.text for r in (environment, itself)] == ["persona:", "oracle:2"]


def test_a_real_models_reply_is_counted_at_most_at_its_max_tokens_and_a_scripted_ones_whole():
    """A stand-in may say more than the real model it plays could: a real model stops at max_tokens (the smoke run's
    judge: 96 tokens, the proxy judge's verdicts some 500), a scripted model is its own reply, counted whole."""
    register_policy("judge", "standin-cap", lambda request: "判" * 300)
    door = StandInDoor(stage="s")
    messages = [{"role": "user", "content": "问"}]
    meta = {"scenario": "standin-cap"}
    capped = MINI.model_copy(update={"decoding": MINI.decoding.model_copy(update={"max_tokens": 16})})
    judge = ModelConfig(name="judge", model="scripted/judge", decoding={"max_tokens": 16})
    for model in (capped, MINI, judge):
        asyncio.run(door.complete(model, messages, purpose="judge", metadata=meta))
    whole = litellm.token_counter(model="gpt-4o-mini", text="判" * 300)
    assert whole > 16
    assert [s.output_tokens for s in door.sent] == [16, whole, 300]  # scripted: one token per character


def test_fails_spreads_a_rate_evenly_and_exactly():
    from steps.llm.standin import fails

    assert [fails(n, 0.5) for n in range(4)] == [False, True, False, True]
    assert [n for n in range(8) if fails(n, 0.25)] == [3, 7]
    assert [n for n in range(10) if fails(n, 0.1)] == [9]  # 10 × 0.1 is 1 after rounding, not 0.999…
    assert all(fails(n, 1.0) for n in range(5)) and not any(fails(n, 0.0) for n in range(5))


def test_a_judges_repair_rate_makes_that_share_of_its_answers_unparsable_and_their_repair_rounds_are_counted():
    """Four JSON judge questions (one repair round each) to a real judge whose repair rate is 0.5: the 2nd and 4th
    first answers are filler (unparsable), so each gets a repair round whose request holds the question, the filler
    and the repair request; the repair answers are counted apart (the 1st of them parses, the 2nd fails and ends
    the question as `parse`). 4 + 2 = 6 calls; an agent's call and a scripted judge are never made to fail."""
    from pydantic import BaseModel

    from steps.llm.structured import REPAIR, complete_json

    class Score(BaseModel):
        score: int

    judge = ModelConfig(name="judge", model="openai/gpt-4o-mini", api_base="http://127.0.0.1:9/v1")
    judge = judge.model_copy(update={"decoding": judge.decoding.model_copy(update={"max_tokens": 40})})
    door = StandInDoor(
        stand_ins={"judge": lambda r: '{"score": 3}', "agent": lambda r: "答"},
        stage="s",
        repair_rates={(judge.model, "http://127.0.0.1:9/v1"): 0.5},
    )
    questions = [[{"role": "user", "content": f"问题{i}：请只输出 JSON。"}] for i in range(4)]

    async def ask_all() -> list:
        return [await complete_json(door, judge, q, Score, purpose="judge") for q in questions]

    results = asyncio.run(ask_all())
    assert [r.attempts for r in results] == [1, 2, 1, 2]
    assert [r.failure is None for r in results] == [True, True, True, False]  # the 2nd repair answer fails too
    assert len(door.sent) == 6
    assert [s.stand_in.startswith("unparsable") for s in door.sent] == [False, True, False, False, True, True]
    filler = door.filler(judge)
    counter = TokenCounter(judge.model)
    assert counter.text(filler) >= 40 and door.sent[1].output_tokens == 40  # the judge's reply length
    error = "no JSON object in the answer"
    repair = [
        *questions[1],
        {"role": "assistant", "content": filler},
        {"role": "user", "content": REPAIR.format(error=error)},
    ]
    assert door.sent[2].input_tokens == counter.prompt(repair)
    assert door.sent[2].replies == 1
    # the same door: an agent's calls and a scripted judge's are answered as before
    asyncio.run(door.complete(judge, questions[0], purpose="agent"))
    scripted_judge = ModelConfig(name="j", model="scripted/judge")
    assert not door.unparsable(scripted_judge, "judge", questions[0])
    assert door.sent[-1].stand_in != "unparsable judge answer (repair rate)"

"""Constrained output: what the door sends per `structured_output`, the cache key, the probe, the wire schemas."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from steps.judges.pairwise import parse_verdict
from steps.judges.pointwise import PointwiseAnswer
from steps.judges.rubric import rubric_schema
from steps.llm import Completion, LLMSettings, ModelConfig, ModelDoor
from steps.llm.cache import call_key
from steps.llm.capabilities import (
    TEXT,
    StructuredCheck,
    asks_structured,
    bound_text,
    load_record,
    record_key,
    response_format,
    save_record,
    wire_schema,
)
from steps.llm.probe import PROBE_MESSAGES, STRUCTURED_SCHEMA, structured_verdict
from steps.llm.results import CallFailure, FailureKind
from steps.llm.structured import complete_json
from steps.ucl.hint_judge import hint_schema
from tests.fake_openai_server import FakeOpenAIServer

HI = [{"role": "user", "content": "你好"}]


def _model(server: FakeOpenAIServer, setting: str) -> ModelConfig:
    return ModelConfig(name="judge", model="hosted_vllm/test-model", api_base=server.url, structured_output=setting)


def _json_reply(body: dict[str, Any]) -> str:
    """A server that honours response_format answers the schema's object; otherwise it answers free text."""
    if "response_format" in body:
        return json.dumps({"score": 7, "reason": "好"}, ensure_ascii=False)
    return "我觉得可以打 7 分"


@pytest.mark.parametrize(
    ("setting", "recorded", "sent"),
    [
        ("json_schema", None, True),
        ("off", True, False),
        ("auto", None, False),  # nothing measured: not asked
        ("auto", False, False),  # measured and ignored or refused
        ("auto", True, True),
    ],
)
def test_the_door_sends_response_format_per_setting(tmp_path, setting, recorded, sent):
    with FakeOpenAIServer(reply=_json_reply) as server:
        model = _model(server, setting)
        cache = tmp_path / "cache"
        if recorded is not None:
            save_record(cache, [StructuredCheck(model.model, model.endpoint(), recorded, "x")])
        door = ModelDoor(LLMSettings(cache_dir=str(cache), max_attempts=1))
        result = asyncio.run(complete_json(door, model, HI, PointwiseAnswer, purpose="judge"))
        door.close()
        assert ("response_format" in server.requests[0]) is sent
        if sent:
            assert server.requests[0]["response_format"]["type"] == "json_schema"
            assert server.requests[0]["response_format"]["json_schema"]["schema"]["required"] == ["score", "reason"]
            assert result.value == PointwiseAnswer(score=7, reason="好") and result.attempts == 1
        else:  # free text: no JSON, one repair round, then a parse failure
            assert result.value is None and result.attempts == 2 and len(server.requests) == 2
            assert isinstance(result.failure, CallFailure) and result.failure.kind is FailureKind.PARSE


def test_scripted_models_are_never_asked_and_keep_their_keys():
    scripted = ModelConfig(name="judge", model="scripted/judge", structured_output="json_schema")
    assert not asks_structured(scripted, {})
    fmt = response_format(PointwiseAnswer)
    # a call without a response_format keys as before; with one, differently
    real = ModelConfig(name="j", model="openai/x", api_base="http://127.0.0.1:1/v1")
    assert call_key(real, HI) == call_key(real, HI, None, None)
    assert call_key(real, HI, None, fmt) != call_key(real, HI)


def test_the_record_is_kept_per_model_and_endpoint(tmp_path):
    a = ModelConfig(name="a", model="openai/x", api_base="http://127.0.0.1:1/v1")
    b = a.model_copy(update={"api_base": "http://127.0.0.1:2/v1"})
    save_record(tmp_path, [StructuredCheck(a.model, a.endpoint(), True, "works")])
    save_record(tmp_path, [StructuredCheck(b.model, b.endpoint(), False, "ignored")])
    record = load_record(tmp_path)
    assert set(record) == {record_key(a), record_key(b)}
    assert asks_structured(a, record) and not asks_structured(b, record)
    (tmp_path / "structured_output.json").write_text("{not json", encoding="utf-8")
    assert load_record(tmp_path) == {}  # unreadable: nothing measured, `auto` asks nothing


def _probe(reply) -> StructuredCheck:
    with FakeOpenAIServer(reply=reply) as server:
        model = _model(server, "json_schema")
        door = ModelDoor(LLMSettings(cache=False, max_attempts=1))
        fmt = response_format(STRUCTURED_SCHEMA, "ack")
        answer = asyncio.run(door.complete(model, PROBE_MESSAGES, purpose="probe", response_format=fmt))
        return structured_verdict(model, answer)


def test_the_probe_tells_works_from_ignored():
    assert _probe(lambda body: '{"ack": "收到"}').works
    ignored = _probe(lambda body: "收到")
    assert not ignored.works and ignored.detail.startswith("ignored")


def test_the_probe_names_a_refusal():
    model = ModelConfig(name="j", model="openai/x")
    refused = structured_verdict(model, CallFailure(FailureKind.BAD_REQUEST, "unknown field", "openai/x", "k", 1))
    assert not refused.works and refused.detail == "refused (bad_request: unknown field)"
    extra = Completion('{"ack": "收到", "x": 1}', "openai/x", "k", 1, 1, None, 0, 1, False)
    assert not structured_verdict(model, extra).works  # a key the schema forbids: not constrained


def test_free_text_goes_last_in_the_wire_schema():
    schema = wire_schema(PointwiseAnswer)
    assert list(schema["properties"]) == ["score", "reason"] and schema["required"] == ["score", "reason"]


def test_a_rubric_is_sent_with_its_ids_in_order_and_bounds():
    checked = rubric_schema((("A1", 2.0), ("A2", 1.0)), ("F1",), (("P1", 3),), ())
    schema = response_format(checked)["json_schema"]["schema"]
    items = schema["properties"]["items"]
    assert [x["properties"]["id"] for x in items["prefixItems"]] == [{"const": "A1"}, {"const": "A2"}]
    assert items["minItems"] == items["maxItems"] == 2
    assert items["prefixItems"][0]["properties"]["awarded"] == {"type": "number", "minimum": 0, "maximum": 2.0}
    assert list(items["prefixItems"][0]["properties"])[-1] == "justification"
    assert schema["properties"]["penalties"]["prefixItems"][0]["properties"]["times"]["maximum"] == 3
    # every answer the wire schema admits (ids once, values in bounds) validates
    ok = {
        "items": [{"id": "A1", "awarded": 2}, {"id": "A2", "awarded": 0}],
        "fails": [{"id": "F1", "triggered": False}],
        "penalties": [{"id": "P1", "times": 3}],
    }
    assert checked.model_validate(ok).items[0].awarded == 2


def test_ucl_hints_are_sent_with_every_point_once():
    schema = wire_schema(hint_schema(("P1", "P2"), ("X1",)))
    assert [x["properties"]["id"]["const"] for x in schema["properties"]["items"]["prefixItems"]] == ["P1", "P2"]
    assert schema["properties"]["forbidden"]["prefixItems"][0]["properties"]["mentioned"] == {"enum": ["yes", "no"]}
    assert schema["required"] == ["items", "forbidden", "score"]


def test_a_constrained_pairwise_verdict_reads_its_key_not_a_quoted_mark():
    assert parse_verdict('{"verdict": "[[2]]", "reason": "回答一不如 [[1]] 所说"}') == ("lose", None, "")
    assert parse_verdict('{"verdict": "[[9]]"}  所以 [[3]]')[0] == "tie"  # not the schema's object: free text
    assert parse_verdict("先分析……最终 [[1]]") == ("win", None, "")


def test_free_text_shares_a_budget_from_max_tokens():
    # 96 tokens: 24 characters of free text; one field gets them all
    assert wire_bound(PointwiseAnswer, 96)["properties"]["reason"]["maxLength"] == 24
    # eight optional justifications would get 3 each: left out, the ids and points stay
    checked = rubric_schema(tuple((f"A{i}", 2.0) for i in range(8)), (), (), ())
    line = wire_bound(checked, 96)["properties"]["items"]["prefixItems"][0]
    assert set(line["properties"]) == {"id", "awarded"}
    # a real judge's larger cap leaves them room: 1024 / 4 / 8 = 32 each
    assert wire_bound(checked, 1024)["properties"]["items"]["prefixItems"][0]["properties"]["justification"] == {
        "type": "string",
        "maxLength": 32,
    }
    # no cap: no bound
    assert "maxLength" not in wire_bound(PointwiseAnswer, None)["properties"]["reason"]


def test_a_required_free_text_is_kept_at_its_minimum():
    schema = {"type": "object", "properties": {"a": TEXT, "b": TEXT, "c": TEXT}, "required": ["a"]}
    bounded = bound_text(schema, 12)  # 4 each: under the minimum
    assert bounded["properties"] == {"a": {"type": "string", "maxLength": 8}}


def wire_bound(schema, max_tokens):
    return response_format(schema, None, max_tokens)["json_schema"]["schema"]

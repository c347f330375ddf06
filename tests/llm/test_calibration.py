"""`jurisflow models check` times every real model and records its calibration; `jurisflow estimate` reads it.

The fake server reports usage by a tokenizer of its own (twice cl100k_base's count), so the recorded ratio of the
server's prompt tokens to the estimate's count is about 2; its answers take a fixed time per token, so the
measured speeds are finite and positive. The record is keyed by model string and api_base and holds no key."""

from __future__ import annotations

import json
import time

import pytest
import tiktoken

from flows.calibrate import load, lookup, save
from flows.kit.config import load_params
from flows.models_check import models_check
from steps.llm.calibration import JUDGE_PROBES, Calibration, TimedCall, calibrate, stage_seconds
from tests.fake_openai_server import FakeOpenAIServer

SECRET = "sk-jurisflow-dummy-calibration-0123456789"


def _cl100k(text: str) -> int:
    import litellm.litellm_core_utils.default_encoding  # noqa: F401  (tiktoken reads the encodings litellm ships)

    return len(tiktoken.get_encoding("cl100k_base").encode(text, disallowed_special=()))


def test_models_check_writes_a_calibration_the_estimate_reads(tmp_path, monkeypatch):
    monkeypatch.setenv("LOCAL_KEY", SECRET)
    monkeypatch.chdir(tmp_path)

    def slow_reply(body: dict) -> str:
        time.sleep(0.01)
        if "[[1]]" in body["messages"][-1]["content"]:  # the verdict probes: readable; the JSON ones are not
            return "回答一引用了法定情形。\n[[1]]"
        return "收到" * min(int(body.get("max_tokens") or 8), 32)

    with FakeOpenAIServer(reply=slow_reply, tokens=lambda t: 2 * _cl100k(t)) as server:
        (tmp_path / "params.yaml").write_text(
            f"""
agents:
  oracle: {{model: scripted/oracle}}
  local: {{model: openai/tiny-local, api_base: "{server.url}", api_key_env: LOCAL_KEY}}
environment: {{model: scripted/persona}}
judge: {{model: openai/tiny-local, api_base: "{server.url}", api_key_env: LOCAL_KEY}}
llm: {{cache_dir: .cache/llm, max_attempts: 1}}
""",
            encoding="utf-8",
        )
        out = tmp_path / ".cache" / "calibration.json"
        assert (
            models_check(tmp_path / "params.yaml", calibration_out=out) == "5 models answered, 0 failed"
        )  # every role, UCL's reference too
        bodies = [b for b in server.requests if b.get("max_tokens") is not None]
        judged = [b for b in server.requests if any(b["messages"] == m for _, _, m in JUDGE_PROBES)]
    assert len(bodies) == 3  # the agent and the judge share one endpoint: timed once, three probes
    assert len(judged) == 4  # and, as it plays the judge, asked the four judge probes once each
    text = out.read_text(encoding="utf-8")
    assert SECRET not in text
    data = json.loads(text)
    assert list(data) == [f"openai/tiny-local @ {server.url}"]
    records = load(out)
    record = lookup(records, load_params(tmp_path / "params.yaml").agent("local"))
    assert record is not None
    assert 1.8 < record.prompt_ratio < 2.05
    assert record.prefill_tps > 0 and record.generation_tps > 0 and record.mean_latency_s >= 0.01
    assert record.probes == 3
    # two JSON probes answered 收到…, unreadable; two verdicts read: half the judge's answers will need a repair
    assert (record.judge_repair_rate, record.judge_probes) == (0.5, 4)


def test_save_keeps_other_records_and_a_broken_file_reads_as_none(tmp_path):
    path = tmp_path / "calibration.json"
    path.write_text("{not json", encoding="utf-8")
    assert load(path) == {}
    a = Calibration("openai/a", "http://a/v1", 1.1, 0.1, 1000.0, 20.0, 0.5, 3, "2026-01-01T00:00:00+00:00")
    b = Calibration("openai/b", "", 1.0, 0.2, 500.0, 10.0, 0.7, 3, "2026-01-01T00:00:00+00:00")
    save([a], path)
    save([b], path)
    assert load(path) == {"openai/a @ http://a/v1": a, "openai/b @ -": b}


def test_calibrate_and_wall_time_by_hand():
    from steps.llm.calibration import ProbeTiming

    timings = [
        ProbeTiming("short", 10, 12, 1, 0.1),
        ProbeTiming("long", 1000, 1210, 1, 1.3),  # 1,198 more prompt tokens in 1.2 s more: 998 tokens/s
        ProbeTiming("generate", 30, 36, 64, 3.3),  # 64 tokens in 3.3 - 0.1 - 24/998 s
    ]
    cal = calibrate("openai/x", None, timings, "t")
    assert cal.prompt_ratio == pytest.approx(1258 / 1040, abs=1e-4)
    assert cal.prefill_tps == pytest.approx(1198 / 1.2, rel=1e-3)
    assert cal.generation_tps == pytest.approx(64 / (3.2 - 24 / (1198 / 1.2)), rel=1e-3)
    assert cal.call_seconds(998.3, 0) == pytest.approx(0.1 + 1.0, rel=1e-3)
    # two dialogues of 3 sequential calls of 1 s on one 2-slot server: 3 s; on one slot: 6 s
    calls = [TimedCall(item, "s", 2, 1.0) for item in ("a", "b") for _ in range(3)]
    assert stage_seconds(calls) == 3.0
    assert stage_seconds([TimedCall(c.item, c.endpoint, 1, c.seconds) for c in calls]) == 6.0
    # ten single calls on 2 slots: 5 s
    assert stage_seconds([TimedCall(str(i), "s", 2, 1.0) for i in range(10)]) == 5.0


def test_the_judge_probes_are_read_by_the_judges_own_parsers():
    from flows.calibrate import readable, with_repair_rate

    assert readable("json", '好的。{"score": 7, "reason": "准确"}')
    assert not readable("json", '{"score": 11, "reason": "超出"}')  # out of range: a repair round in a judge
    assert not readable("json", "```python\nimport json\n")  # what SmolLM2-135M answered MILE's judge
    assert readable("verdict", "回答一更好。\n[[1]]")
    assert not readable("verdict", "回答一更好写 [[1]]，回答二更好写 [[2]]，一样好写 [[3]]。")  # reciting the options
    record = Calibration("openai/a", "", 1.0, 0.1, 100.0, 10.0, 0.5, 3, "t")
    assert with_repair_rate(record, (3, 4)).judge_repair_rate == 0.75
    assert with_repair_rate(record, (0, 0)).judge_repair_rate is None


@pytest.mark.parametrize("structured", ["json_schema", "off"])
def test_the_judge_probes_are_asked_with_the_answers_schema_where_the_judge_takes_one(tmp_path, structured):
    """As the judges ask: the JSON probes with the score's schema, the verdict probes with the verdict's, sent only
    where the judge's structured_output says so; a server that answers within the schema needs no repair."""
    from flows.calibrate import measure_judge
    from steps.llm import LLMSettings, ModelConfig, ModelDoor

    def reply(body: dict) -> str:
        name = body.get("response_format", {}).get("json_schema", {}).get("name")
        return {
            "PairwiseAnswer": '{"verdict": "[[1]]", "reason": "一"}',
            "ProbeScore": '{"score": 7, "reason": "好"}',
        }.get(name, "收到")

    with FakeOpenAIServer(reply=reply) as server:
        judge = ModelConfig(name="j", model="openai/tiny", api_base=server.url, structured_output=structured)
        door = ModelDoor(LLMSettings(cache_dir=str(tmp_path / "cache"), max_attempts=1))
        try:
            measured = measure_judge(door, judge)
        finally:
            door.close()
        names = [b.get("response_format", {}).get("json_schema", {}).get("name") for b in server.requests]
    kinds = [kind for _, kind, _ in JUDGE_PROBES]
    if structured == "json_schema":
        assert names == ["PairwiseAnswer" if k == "verdict" else "ProbeScore" for k in kinds]
        assert measured == (0, 4)
    else:
        assert names == [None] * 4 and measured == (4, 4)  # free text without a verdict or JSON: all unreadable

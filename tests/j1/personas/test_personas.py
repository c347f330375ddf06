"""Big-Five redistribution, seeded determinism, and persona generation through the model door."""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import pytest

import steps.j1.personas.scripted  # noqa: F401  (registers the scripted persona policies)
from steps.j1.personas.big5 import TRAITS, redistribute
from steps.j1.personas.generate import Subject, generate
from steps.llm import LLMSettings, ModelConfig, ModelDoor
from tests.fake_openai_server import FakeOpenAIServer

ALL_MEDIUM = dict.fromkeys(TRAITS, "medium")


def test_medium_is_redrawn_two_one_two_on_a_large_sample():
    draws = Counter()
    for i in range(4000):
        draws.update(redistribute(ALL_MEDIUM, seed=7, key=f"case/{i}").values())
    n = sum(draws.values())  # 20,000 independent draws
    expected = {"high": 0.4 * n, "medium": 0.2 * n, "low": 0.4 * n}
    chi2 = sum((draws[k] - e) ** 2 / e for k, e in expected.items())
    assert chi2 < 13.8  # chi-square, 2 degrees of freedom, p = 0.001
    assert abs(draws["medium"] / n - 0.2) < 0.01


def test_high_and_low_are_kept_and_the_draw_is_seeded():
    fixed = {
        "extraversion": "high",
        "neuroticism": "low",
        "openness": "medium",
        "agreeableness": "medium",
        "conscientiousness": "high",
    }
    a = redistribute(fixed, seed=1, key="x")
    assert (a["extraversion"], a["neuroticism"], a["conscientiousness"]) == ("high", "low", "high")
    assert a == redistribute(fixed, seed=1, key="x")
    assert any(
        redistribute(ALL_MEDIUM, seed=2, key=f"k{i}") != redistribute(ALL_MEDIUM, seed=1, key=f"k{i}")
        for i in range(20)
    )
    with pytest.raises(ValueError, match="not one of"):
        redistribute({**fixed, "openness": "very high"}, seed=1, key="x")


SUBJECT = Subject(
    "CD/c/1/plaintiff",
    "CD",
    "plaintiff",
    "民事案件的原告（自然人）",
    "person",
    "原告李某，经营一家小饭店，被告拖欠货款三万元。",
    frozenset({"gender", "address"}),
)


def test_scripted_persona_is_complete_and_deterministic(tmp_path):
    door = ModelDoor(LLMSettings(cache_dir=str(tmp_path)))
    model = ModelConfig(name="environment", model="scripted/persona")
    first = asyncio.run(generate(door, model, SUBJECT, seed=3))
    again = asyncio.run(generate(ModelDoor(LLMSettings(cache_dir=str(tmp_path / "b"))), model, SUBJECT, seed=3))
    assert first == again and first.failure is None
    assert set(first.levels) == set(TRAITS) and first.style and "你" in first.style
    assert all(first.levels[t] == first.assigned[t] for t in TRAITS if first.assigned[t] != "medium")
    assert first.withheld_field in {"gender", "address"} and 1 <= first.legal_sense <= 5


def test_a_model_that_never_answers_json_leaves_a_recorded_failure(tmp_path):
    with FakeOpenAIServer(reply=lambda body: "这个人应该比较外向。") as server:
        door = ModelDoor(LLMSettings(cache_dir=str(tmp_path)))
        model = ModelConfig(name="environment", model="hosted_vllm/test-model", api_base=server.url)
        persona = asyncio.run(generate(door, model, SUBJECT, seed=3))
        assert server.count == 2  # the answer, then one repair round with the error shown
        assert "请只输出符合要求的 JSON" in server.requests[1]["messages"][-1]["content"]
    assert persona.levels is None and persona.style is None
    assert persona.failure.startswith("trait levels: parse: invalid JSON answer after 2 attempts")


def test_a_real_model_answer_is_validated_then_styled(tmp_path):
    def reply(body):
        if "JSON" in body["messages"][-1]["content"]:
            return "```json\n" + json.dumps({t: "medium" for t in TRAITS}) + "\n```"
        return "你说话慢条斯理。"

    with FakeOpenAIServer(reply=reply) as server:
        door = ModelDoor(LLMSettings(cache_dir=str(tmp_path)))
        persona = asyncio.run(
            generate(door, ModelConfig(name="e", model="hosted_vllm/m", api_base=server.url), SUBJECT, seed=3)
        )
    assert persona.failure is None and persona.style == "你说话慢条斯理。"
    assert persona.assigned == ALL_MEDIUM and persona.levels == redistribute(ALL_MEDIUM, seed=3, key=SUBJECT.key)


def test_legal_sense_levels_are_uniform_and_seeded_and_the_withheld_detail_is_one_the_role_has():
    from steps.j1.personas.legal_sense import WITHHOLDABLE, assign_distractors, assign_legal_sense

    levels = Counter(assign_legal_sense(seed=5, key=f"case/{i}") for i in range(5000))
    chi2 = sum((levels[k] - 1000) ** 2 / 1000 for k in range(1, 6))
    assert set(levels) == {1, 2, 3, 4, 5} and chi2 < 18.5  # 4 degrees of freedom, p = 0.001
    assert assign_legal_sense(seed=5, key="x") == assign_legal_sense(seed=5, key="x")
    held = {"gender", "address"}
    picks = Counter(assign_distractors("person", held, seed=1, key=f"k{i}").withheld_field for i in range(400))
    assert set(picks) == held and min(picks.values()) > 150  # uniform over what the role actually has
    assert assign_distractors("person", set(), seed=1, key="k").withheld_field is None  # nothing to withhold
    assert set(WITHHOLDABLE["entity"]) == {"address", "legal_representative"}  # a name is never withheld


def test_scripted_personas_keep_the_redistribution_on_a_large_sample(tmp_path):
    door = ModelDoor(LLMSettings(cache_dir=str(tmp_path)))
    model = ModelConfig(name="environment", model="scripted/persona")
    subjects = [
        Subject(f"KQ/s{i}/client", "KQ", "client", "请教法律的普通人", "person", f"职业{i}") for i in range(600)
    ]

    async def every():
        return await asyncio.gather(*(generate(door, model, s, seed=11) for s in subjects))

    personas = asyncio.run(every())
    door.close()
    assigned = Counter(level for p in personas for level in p.assigned.values())
    final = Counter(level for p in personas for level in p.levels.values())
    redrawn = assigned["medium"]
    kept_medium = final["medium"]
    # every assigned medium is re-drawn: about a fifth stay medium, the rest split evenly high / low
    assert abs(kept_medium / redrawn - 0.2) < 0.05
    assert abs((final["high"] - assigned["high"]) - (final["low"] - assigned["low"])) < 0.12 * redrawn
    assert all(p.style and p.failure is None for p in personas)

"""The six J1 protocols run by the engine: turn order, routing, every ending, the turn cap and failure causes.

Whole dialogues go through the model door with the scripted models (oracle agent, null agent, persona
environment); single paths are driven by crafted speakers (`Script`) on the real scenarios and instances.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from steps.j1.envs.registry import SCENARIOS
from steps.j1.eval.failures import failure_causes as causes_of_speech
from steps.llm import LLMSettings, ModelConfig, ModelDoor
from steps.simulate import EndReason, TurnKind
from steps.simulate.engine import run_dialogue
from steps.simulate.runner import DoorSpeaker
from tests.simulate.toys import Script


def failure_causes(dialogue, scenario) -> list[str]:
    """The judge stage's failure causes of a dialogue the engine ran."""
    return causes_of_speech([(t.speaker, t.addressee, t.text) for t in dialogue.utterances()], scenario)


J1 = ("KQ", "LC", "CD", "DD", "CI", "CR")
JUDGMENT = (
    "本院认为，原告的诉讼请求有事实和法律依据。依照《中华人民共和国民法典》第六百七十五条的规定，判决如下：\n"
    "被告于本判决生效之日起十日内偿还原告借款。"
)


@pytest.fixture
def door(tmp_path):
    d = ModelDoor(LLMSettings(cache_dir=str(tmp_path / "cache")))
    yield d
    d.close()


def scripted(door, agent: str) -> DoorSpeaker:
    return DoorSpeaker(
        door, ModelConfig(name=agent, model=f"scripted/{agent}"), ModelConfig(name="env", model="scripted/persona")
    )


def run(code, instance, speak):
    return asyncio.run(run_dialogue(SCENARIOS[code], instance, speak))


def speakers(d) -> list[str]:
    return [t.speaker for t in d.utterances()]


@pytest.mark.parametrize("code", J1)
def test_the_oracle_completes_every_scenario_without_a_failure_cause(door, instances, code):
    d = run(code, instances[code], scripted(door, "oracle"))
    expected = {"KQ": EndReason.TOPICS_DONE, "LC": EndReason.TOPICS_DONE}.get(code, EndReason.MARKER)
    assert d.ended_by is expected and failure_causes(d, SCENARIOS[code]) == []
    assert d.exchanges <= SCENARIOS[code].ending.max_turns
    order = speakers(d)
    if code in ("KQ", "LC"):
        assert order == ["client", "agent"] * (len(order) // 2)
        checks = [t for t in d.turns if t.kind is TurnKind.CHECK]
        assert len(checks) == d.exchanges and not d.state["unaddressed"]
        answered = [c.data["topic_index"] for c in checks if c.data["topic_index"] is not None]
        assert answered == sorted(answered) == list(range(len(d.state["topics"])))  # asked in order, each once
    elif code in ("CD", "DD"):
        assert order == ["lawyer", SCENARIOS[code].next_speaker.second] * (len(order) // 2) + ["lawyer"]
        assert d.deliverable.startswith("民事起诉状" if code == "CD" else "民事答辩状") and not d.deliverable_forced
    else:
        judge = [t for t in d.utterances() if t.speaker == "judge"]
        assert all(t.addressee for t in judge[1:-1])  # one action per turn, every one addressed
        for before, after in zip(d.utterances(), d.utterances()[1:], strict=False):
            if after.speaker != "judge":
                assert before.speaker == "judge" and before.addressee == after.speaker and after.addressee == "judge"
        assert d.deliverable.startswith("本院认为") and "判决如下" in d.deliverable


@pytest.mark.parametrize("code", J1)
def test_the_null_agent_ends_the_dialogue_at_its_first_empty_reply(door, instances, code):
    d = run(code, instances[code], scripted(door, "null"))
    assert d.ended_by is EndReason.EMPTY_REPLY and d.deliverable is None
    empty = d.utterances()[-1]
    assert empty.text == "" and SCENARIOS[code].role(empty.speaker).model == "agent"
    if code in ("CI", "CR"):
        assert failure_causes(d, SCENARIOS[code]) == ["missing_final_objective", "role_omission"]


def test_control_sentences_route_to_their_role_and_anything_else_back_to_the_judge(instances):
    script = Script(
        {
            "judge": [
                "现在开庭。",
                "对被告辩护人说：请发表辩护意见。",
                "对被告当事人说：你叫什么？",
                "对公诉机关说:请宣读起诉书。",
                "请被告人陈述。对被告人说：这句不算。",
                "<结束庭审>",
            ],
            "defence": ["我的委托人认罪。"],
            "defendant": ["我叫甲。"],
            "procurator": ["起诉书……"],
        }
    )
    d = run("CR", instances["CR"], script)
    assert speakers(d) == ["judge", "judge", "defence", "judge", "defendant", "judge", "procurator", "judge", "judge"]
    assert [t.addressee for t in d.utterances() if t.speaker == "judge"] == [
        None,
        "defence",
        "defendant",
        "procurator",
        None,
        None,
    ]
    assert d.ended_by is EndReason.MARKER and d.exchanges == 6
    heard = next(c for c in script.calls if c.role.name == "defendant").messages[-1]["content"]
    assert heard == "你叫什么？"  # the control sentence is stripped before the addressee hears it


def test_the_client_may_end_the_consultation_with_its_phrase(instances):
    script = Script(
        {
            "client": ["您好，我想咨询。", "结束对话"],
            "agent": ["请讲。"],
            "supervisor": ['{"topic": "无", "answer": "无"}'],
        }
    )
    d = run("KQ", instances["KQ"], script)
    assert d.ended_by is EndReason.MARKER and speakers(d) == ["client", "agent", "client"] and d.exchanges == 2


def test_the_turn_cap_cuts_the_interview_and_the_document_is_asked_for_once(instances):
    cap = 3
    script = Script(
        {
            "lawyer": ["请问您的姓名？"] * cap + ["民事起诉状\n原告：张三\n诉讼请求：\n1. 还钱"],
            "plaintiff": ["张三。"] * cap,
        }
    )
    d = run("CD", replace(instances["CD"], max_turns=cap), script)
    assert d.ended_by is EndReason.MAX_TURNS and d.exchanges == cap and len(d.utterances()) == 2 * cap
    forced = [t for t in d.turns if t.kind is TurnKind.DELIVERABLE]
    assert len(forced) == 1 and d.deliverable_forced and d.deliverable.startswith("民事起诉状")
    assert "输出完整的民事起诉状" in script.calls[-1].messages[-1]["content"]


def test_the_court_turn_cap_gives_no_judgment_and_forces_none(instances):
    script = Script({"judge": ["对原告说：请陈述。"] * 10, "plaintiff_lawyer": ["好的。"] * 10})
    d = run("CI", replace(instances["CI"], max_turns=4), script)
    assert d.ended_by is EndReason.MAX_TURNS and d.exchanges == 4 and d.deliverable is None
    assert not any(t.kind is TurnKind.DELIVERABLE for t in d.turns)
    assert failure_causes(d, SCENARIOS["CI"]) == ["missing_final_objective", "role_omission"]


def test_a_failed_call_ends_the_instance_and_is_recorded(instances):
    script = Script(
        {"lawyer": ["您好，请问您的姓名？", "还有呢？"], "defendant": ["我叫乙。"]}, fail_at={("defendant", 1)}
    )
    d = run("DD", instances["DD"], script)
    assert d.ended_by is EndReason.CALL_FAILED and d.deliverable is None
    assert d.turns[-1].failure == "server: injected" and d.turns[-1].text == ""


def test_the_four_failure_causes_are_found_in_crafted_trials(instances):
    ci, sc = instances["CI"], SCENARIOS["CI"]
    collapse = run("CI", ci, Script({"judge": ["现在开庭，核实身份，告知权利。" + JUDGMENT + "<结束庭审>"]}))
    assert failure_causes(collapse, sc) == ["single_turn_collapse", "role_omission"]
    unaddressed = Script(
        {
            "judge": ["现在开庭。", "请原告陈述。", "对原告说：请陈述。", JUDGMENT + "<结束庭审>"],
            "plaintiff_lawyer": ["陈述如下……"],
        }
    )
    assert failure_causes(run("CI", ci, unaddressed), sc) == ["missing_addressee", "role_omission"]
    endless = Script(
        {
            "judge": ["对原告说：请陈述。", "对被告说：请答辩。"] * 5,
            "plaintiff_lawyer": ["好。"] * 5,
            "defendant_lawyer": ["好。"] * 5,
        }
    )
    assert failure_causes(run("CI", replace(ci, max_turns=6), endless), sc) == ["missing_final_objective"]
    proper = Script(
        {
            "judge": ["现在开庭。", "对原告说：请陈述。", "对被告说：请答辩。", JUDGMENT + "<结束庭审>"],
            "plaintiff_lawyer": ["陈述……"],
            "defendant_lawyer": ["答辩……"],
        }
    )
    d = run("CI", ci, proper)
    assert failure_causes(d, sc) == [] and d.deliverable == JUDGMENT


def test_the_client_is_reminded_only_of_the_topics_still_open(door, instances):
    calls = []
    speak = scripted(door, "oracle")

    async def spy(call):
        calls.append(call)
        return await speak(call)

    run("KQ", instances["KQ"], spy)
    topics = instances["KQ"].profiles["client"]["topics"]
    client_prompts = [
        c.messages[0]["content"].split("目前还没有问清楚的问题：")[1] for c in calls if c.role.name == "client"
    ]
    open_counts = [sum(t in p for t in topics) for p in client_prompts]
    assert open_counts[0] == len(topics) and open_counts == sorted(open_counts, reverse=True) and open_counts[-1] == 1


def test_the_lc_client_answers_the_lawyers_question_from_its_background(door, instances):
    lc = instances["LC"]
    script = Script({"agent": ["请问事情是什么时候发生的？"], "supervisor": ['{"topic": "无", "answer": "无"}']})
    persona = scripted(door, "null")

    async def speak(call):
        return await (script(call) if call.role.name == "agent" else persona(call))

    d = run("LC", replace(lc, max_turns=2), speak)
    reply = d.utterances()[2]
    assert reply.speaker == "client" and lc.profiles["client"]["background"][:20] in reply.text

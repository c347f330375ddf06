"""The turn loop with scripted speakers: routing, views, endings, failures, deliverables."""

from __future__ import annotations

import asyncio
import itertools

from steps.llm import FailureKind
from steps.simulate import EndReason, TurnKind
from steps.simulate.engine import run_dialogue
from steps.simulate.instance import Instance
from steps.simulate.records import RunLabel, context_limit_keys, run_tables
from tests.simulate.toys import Script, court, interview

COURT = Instance(
    "c/1",
    "TOYCOURT",
    {
        "judge": {"findings": "被告人甲盗窃手机一部"},
        "defendant": {"name": "甲", "secret": "我其实还偷过一次"},
        "procurator": {"name": "检察院", "secret": "证据三份"},
    },
    ground_truth={"charges": ["盗窃"]},
)


RUN = RunLabel("run1", "oracle", "j1")


def scenario_of(code: str):
    return {"TOYCOURT": court(), "TOYCD": interview()}[code]


def run(scenario, instance, speak):
    return asyncio.run(run_dialogue(scenario, instance, speak))


def test_unaddressed_judge_turn_goes_back_to_the_judge():
    script = Script(
        {
            "judge": [
                "现在开庭。",
                "对被告人说：请陈述。",
                "对公诉机关说：请宣读起诉书。",
                "本院认为，被告人甲犯盗窃罪。判决如下：有期徒刑六个月。<结束庭审>",
            ],
            "defendant": ["我认罪。"],
            "procurator": ["起诉书如下……"],
        }
    )
    d = run(court(), COURT, script)
    assert [t.speaker for t in d.utterances()] == ["judge", "judge", "defendant", "judge", "procurator", "judge"]
    assert [t.addressee for t in d.utterances()][:3] == [None, "defendant", "judge"]
    assert d.ended_by is EndReason.MARKER and d.exchanges == 4
    assert d.deliverable == "本院认为，被告人甲犯盗窃罪。判决如下：有期徒刑六个月。"
    # the judge spoke twice in a row: its second prompt ends with the nudge, not with its own words
    assert script.calls[1].messages[-1] == {"role": "user", "content": "（请继续主持庭审。）"}


def test_parties_hear_only_what_is_addressed_to_them():
    script = Script(
        {
            "judge": ["对被告人说：你叫什么？", "对公诉机关说：请出示证据。", "对被告人说：还有补充吗？", "<结束庭审>"],
            "defendant": ["我叫甲。", "没有了。"],
            "procurator": ["证据一……"],
        }
    )
    run(court(), COURT, script)
    second_defendant_call = [c for c in script.calls if c.role.name == "defendant"][1]
    heard = " ".join(m["content"] for m in second_defendant_call.messages[1:])
    assert "请出示证据" not in heard and "证据一" not in heard
    assert "你叫什么" in heard and "还有补充吗" in heard
    judge_call = script.calls[-1]
    judge_heard = [m["content"] for m in judge_call.messages if m["role"] == "user"]
    assert "公诉机关：证据一……" in judge_heard and "被告人：没有了。" in judge_heard  # everyone, named


def test_no_view_contains_another_roles_private_profile_or_the_ground_truth():
    script = Script(
        {
            "judge": ["对被告人说：说吧。", "对公诉机关说：说吧。", "<结束庭审>"],
            "defendant": ["好的。"],
            "procurator": ["好的。"],
        }
    )
    run(court(), COURT, script)
    for call in script.calls:
        text = " ".join(m["content"] for m in call.messages)
        for role, profile in COURT.profiles.items():
            if role != call.role.name and "secret" in profile:
                assert profile["secret"] not in text
        assert "ground_truth" not in text and "盗窃罪" not in text


def test_max_turns_cuts_the_dialogue_and_no_judgment_is_forced():
    script = Script({"judge": ["对被告人说：嗯。"] * 20, "defendant": ["嗯。"] * 20})
    d = run(court(max_turns=3), COURT, script)
    assert d.ended_by is EndReason.MAX_TURNS and d.exchanges == 3
    assert len([t for t in d.utterances() if t.speaker == "judge"]) == 3
    assert d.deliverable is None and not d.deliverable_forced


def test_a_failed_call_ends_the_instance_and_is_never_speech():
    script = Script(
        {"judge": ["对被告人说：你好。", "对被告人说：再说一遍。"], "defendant": ["好。"]}, fail_at={("defendant", 1)}
    )
    d = run(court(), COURT, script)
    assert d.ended_by is EndReason.CALL_FAILED
    failed = d.turns[-1]
    assert failed.failure == "server: injected" and failed.text == ""
    assert failed not in d.utterances() and d.deliverable is None


def test_marker_message_is_the_deliverable_when_it_holds_the_document():
    script = Script({"lawyer": ["请问您的姓名？", "起诉状\n原告：张三……<询问结束>"], "client": ["张三。"]})
    d = run(
        interview(),
        Instance("i/1", "TOYCD", {"lawyer": {"template": "起诉状模板"}, "client": {"name": "张三", "secret": "x"}}),
        script,
    )
    assert d.ended_by is EndReason.MARKER and d.deliverable == "起诉状\n原告：张三……" and not d.deliverable_forced
    assert not any(t.kind is TurnKind.DELIVERABLE for t in d.turns)


def test_the_document_is_forced_once_when_the_cap_is_hit():
    script = Script({"lawyer": ["问题？"] * 2 + ["起诉状\n原告：张三"], "client": ["答。"] * 3})
    d = run(
        interview(max_turns=2),
        Instance("i/2", "TOYCD", {"lawyer": {"template": "T"}, "client": {"name": "张三", "secret": "x"}}),
        script,
    )
    assert d.ended_by is EndReason.MAX_TURNS and d.exchanges == 2
    forced = [t for t in d.turns if t.kind is TurnKind.DELIVERABLE]
    assert len(forced) == 1 and d.deliverable == "起诉状\n原告：张三" and d.deliverable_forced
    assert script.calls[-1].messages[-1]["content"].endswith("请现在输出完整的起诉状。")


def test_reasoning_traces_are_stripped_before_routing():
    script = Script({"judge": ["<think>先问被告人</think>对被告人说：姓名？", "<结束庭审>"], "defendant": ["甲。"]})
    d = run(court(), COURT, script)
    assert d.utterances()[0].text == "对被告人说：姓名？" and d.utterances()[0].addressee == "defendant"


def failure_causes(dialogue, scenario) -> list[str]:
    """The judge stage's failure causes (steps.j1.eval.failures) of a dialogue the engine ran."""
    from steps.j1.eval.failures import failure_causes as causes

    return causes([(t.speaker, t.addressee, t.text) for t in dialogue.utterances()], scenario)


def test_failure_causes_of_a_court_dialogue():
    collapse = Script(
        {
            "judge": [
                "现在开庭，核实身份，告知诉讼权利。本院认为，被告人甲犯盗窃罪。判决如下：有期徒刑六个月。<结束庭审>"
            ]
        }
    )
    d = run(court(), COURT, collapse)
    assert failure_causes(d, court()) == ["single_turn_collapse", "role_omission"]

    rambling = Script(
        {
            "judge": ["现在开庭。", "请被告人陈述。", "对被告人说：你认罪吗？"] + ["对被告人说：还有吗？"] * 20,
            "defendant": ["认罪。"] * 30,
        }
    )
    d = run(court(max_turns=5), COURT, rambling)
    assert failure_causes(d, court()) == ["missing_final_objective", "missing_addressee", "role_omission"]

    proper = Script(
        {
            "judge": [
                "现在开庭。",
                "对被告人说：姓名？",
                "对公诉机关说：请宣读起诉书。",
                "本院认为，被告人甲犯盗窃罪。判决如下：有期徒刑六个月。<结束庭审>",
            ],
            "defendant": ["甲。"],
            "procurator": ["起诉书……"],
        }
    )
    assert failure_causes(run(court(), COURT, proper), court()) == []


def test_messages_alternate_from_a_user_line_as_chat_templates_require():
    script = Script({"judge": ["现在开庭。", "宣布纪律。", "对被告人说：姓名？", "<结束庭审>"], "defendant": ["甲。"]})
    run(court(), COURT, script)
    last_judge = [c for c in script.calls if c.role.name == "judge"][-1].messages
    roles = [m["role"] for m in last_judge]
    assert roles[0] == "system" and roles[1] == "user"
    assert all(a != b for a, b in itertools.pairwise(roles))  # strictly alternating
    assert [m["content"] for m in last_judge[1:4]] == [
        "（对话开始，请你先发言。）",
        "现在开庭。",
        "（请继续主持庭审。）",
    ]


def test_an_empty_reply_ends_the_dialogue_and_no_document_is_asked_for():
    script = Script({"lawyer": ["请问您的姓名？", "<think>想一想</think>"], "client": ["张三。"]})
    d = run(
        interview(),
        Instance("i/3", "TOYCD", {"lawyer": {"template": "T"}, "client": {"name": "张三", "secret": "x"}}),
        script,
    )
    assert d.ended_by is EndReason.EMPTY_REPLY and d.deliverable is None
    assert d.utterances()[-1].text == "" and not any(t.kind is TurnKind.DELIVERABLE for t in d.turns)


def test_the_addressee_hears_the_utterance_without_its_control_sentence():
    script = Script({"judge": ["“对被告人说:你叫什么？", "<结束庭审>"], "defendant": ["甲。"]})
    d = run(court(), COURT, script)
    assert d.utterances()[0].addressee == "defendant"
    defendant = next(c for c in script.calls if c.role.name == "defendant")
    assert defendant.messages[-1]["content"] == "你叫什么？"


def test_a_reviewer_can_send_a_turn_back_for_revision_before_it_is_kept():
    """The supervisor hook MASER needs: a draft is reviewed, revised once, and only the revision is heard."""
    from dataclasses import dataclass

    @dataclass
    class Verdict:
        accepted: bool
        advice: str

    class Reviewer:
        reviews, role, max_revisions = ("client",), "supervisor", 1

        async def review(self, engine, role_name, text):
            return Verdict("张三" in text, "请说出你的姓名。")

        def revise_messages(self, engine, role_name, text, verdict):
            return engine.messages(role_name, extra_user=f"修改意见：{verdict.advice}")

    script = Script({"lawyer": ["请问您的姓名？", "<询问结束>"], "client": ["不想说。", "我叫张三。"]})
    instance = Instance("i/4", "TOYCD", {"lawyer": {"template": "T"}, "client": {"name": "张三", "secret": "x"}})
    d = run(interview(reviewer=Reviewer()), instance, script)
    kinds = [(t.speaker, t.kind.value, t.text) for t in d.turns]
    assert kinds[:4] == [
        ("lawyer", "utterance", "请问您的姓名？"),
        ("client", "draft", "不想说。"),
        ("supervisor", "review", "请说出你的姓名。"),
        ("client", "utterance", "我叫张三。"),
    ]
    assert d.turns[3].revision == 1 and script.calls[2].purpose == "revision"
    assert "修改意见：请说出你的姓名。" in script.calls[2].messages[-1]["content"]
    last_lawyer = [c for c in script.calls if c.role.name == "lawyer"][-1]
    assert "不想说" not in str(last_lawyer.messages)  # the draft sent back is heard by no one


# ------------------------------------------------------------------ the agent's context limit (issue 37, item 2)
def test_the_agent_outgrowing_its_context_ends_the_dialogue_as_its_limit_not_a_failure():
    script = Script(
        {
            "judge": ["对被告人说：你好。", "本院认为，被告人甲犯盗窃罪。", "对被告人说：再说一遍。"],
            "defendant": ["好。"] * 3,
        },
        fail_at={("judge", 3)},  # the judge is the agent under test here
        fail_kind=FailureKind.CONTEXT_EXCEEDED,
    )
    d = run(court(), COURT, script)
    assert d.ended_by is EndReason.CONTEXT_EXCEEDED
    last = d.turns[-1]
    assert (last.speaker, last.text, last.failure) == ("judge", "", "context_exceeded: injected")
    assert last not in d.utterances()
    # a deliverable that needs no call is still taken from what was said; no more call is made
    assert d.deliverable == "本院认为，被告人甲犯盗窃罪。" and len(script.calls) == 6
    _, rows = run_tables([d], scenario_of, RUN)
    assert rows.failure.isna().all() and rows.ended_by.tolist() == ["context_exceeded"]  # no harness failure


def test_a_forced_document_that_outgrows_the_agent_s_context_ends_it_the_same_way():
    script = Script(
        {"lawyer": ["问题？"] * 2, "client": ["答。"] * 2},
        fail_at={("lawyer", 2)},  # the forced complaint after the cap
        fail_kind=FailureKind.CONTEXT_EXCEEDED,
    )
    instance = Instance("i/4", "TOYCD", {"lawyer": {"template": "T"}, "client": {"name": "张三", "secret": "x"}})
    d = run(interview(max_turns=2), instance, script)
    assert d.ended_by is EndReason.CONTEXT_EXCEEDED and d.deliverable is None
    assert d.turns[-1].kind is TurnKind.DELIVERABLE and d.turns[-1].failure.startswith("context_exceeded")


def test_an_environment_role_outgrowing_its_context_is_a_failed_call():
    script = Script(
        {"judge": ["对被告人说：你好。", "对被告人说：再说一遍。"], "defendant": ["好。"]},
        fail_at={("defendant", 1)},
        fail_kind=FailureKind.CONTEXT_EXCEEDED,
    )
    d = run(court(), COURT, script)
    assert d.ended_by is EndReason.CALL_FAILED and d.turns[-1].failure == "context_exceeded: injected"
    _, rows = run_tables([d], scenario_of, RUN)
    assert rows.failure.tolist() == ["defendant: context_exceeded: injected"]


def test_the_calls_at_the_agent_s_limit_are_named_by_their_keys():
    at_limit = Script(
        {"judge": ["对被告人说：你好。"], "defendant": ["好。"]},
        fail_at={("judge", 1)},
        fail_kind=FailureKind.CONTEXT_EXCEEDED,
    )
    environment = Script(
        {"judge": ["对被告人说：你好。"], "defendant": []},
        fail_at={("defendant", 0)},
        fail_kind=FailureKind.CONTEXT_EXCEEDED,
    )
    dialogues = [run(court(), COURT, at_limit), run(court(), Instance("c/2", "TOYCOURT", COURT.profiles), environment)]
    turns, rows = run_tables(dialogues, scenario_of, RUN)
    assert context_limit_keys(turns, rows) == [dialogues[0].turns[-1].call_key] == ["k3"]

"""The supervised turn loop: contradicting client turns are revised before they are kept, the revision count
is recorded per turn, the withheld detail and fact blurring follow the spec, and failures are recorded."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

from steps.llm import CallFailure, Completion, FailureKind
from steps.mile.params import MileParams
from steps.simulate import EndReason, TurnKind
from steps.simulate.engine import run_dialogue
from steps.simulate.instance import Instance
from steps.simulate.review import Reviewer, Verdict, parse_advice, revisions_done
from tests.mile.conftest import row_of, simulate_one
from tests.simulate.toys import Script, interview

LIE = "我叫王五。"


def lying_about_the_name(base):
    """The client's first answer to the name question contradicts its profile; everything else is scripted."""

    async def speak(call):
        asked = call.messages[-1]["content"] if call.messages else ""
        if call.role.name == "client" and call.purpose == "dialogue" and "姓名" in asked:
            return Completion(LIE, "test/liar", "k", 1, 1, 0.0, 0.0, 1, False)
        return await base(call)

    return speak


def test_a_contradicting_client_turn_is_revised_before_it_is_kept(mile, door):
    d = simulate_one(door, row_of(mile, 1), speak=lying_about_the_name)
    name_turn = next(t for t in d.utterances() if t.speaker == "client" and "李恩泉" in t.text)
    assert name_turn.text == "我叫李恩泉。" and name_turn.revision == 1
    same = [t for t in d.turns if t.exchange == name_turn.exchange]
    kinds = [(t.kind, t.speaker) for t in same]
    assert kinds[:4] == [
        (TurnKind.CHECK, "supervisor"),
        (TurnKind.DRAFT, "client"),
        (TurnKind.REVIEW, "supervisor"),
        (TurnKind.UTTERANCE, "client"),
    ]
    assert same[1].text == LIE and "李恩泉" in same[2].text and same[0].data["accepted"] is False
    # the revised turn is not reviewed again: one supervisor check for this turn
    assert sum(t.kind is TurnKind.CHECK for t in same) == 1
    # nobody hears the draft: the lawyer's later turns never saw the lie
    assert all(LIE not in t.text for t in d.utterances())


def test_every_kept_client_turn_carries_its_revision_count(mile, door):
    d = simulate_one(door, row_of(mile, 1))
    client = [t for t in d.utterances() if t.speaker == "client"]
    revised = [t for t in client if t.revision]
    assert len(revised) == 1 and revised[0].revision == 1  # the blurred facts turn only
    check = next(t for t in d.turns if t.kind is TurnKind.CHECK and t.exchange == revised[0].exchange)
    assert check.data["blurred"] is True and check.data["stage"] == "facts"
    assert revised[0].text.startswith("这个……我记得不是特别清楚了")
    assert d.ended_by is EndReason.MARKER and d.deliverable.startswith("起诉状")


def test_the_withheld_detail_is_held_back_once_and_given_when_asked_again(mile, door):
    row = row_of(mile, 1)  # less = 出生日期
    d = simulate_one(door, row)
    answers = [t.text for t in d.utterances() if t.speaker == "client"]
    first = next(i for i, a in enumerate(answers) if "出生日期嘛" in a)
    assert "1970年3月17日" not in answers[first] and "1970年3月17日" in answers[first + 1]
    # turn 1 (the answer to the greeting) and turn 0 are not supervised
    checks = [t for t in d.turns if t.kind is TurnKind.CHECK]
    assert min(t.exchange for t in checks) == 3


def test_a_failed_supervisor_call_leaves_the_turn_unreviewed_and_is_recorded(mile, door):
    def failing_reviews(base):
        async def speak(call):
            if call.role.name == "supervisor" and call.purpose == "stage" and call.context["exchange"] == 4:
                return CallFailure(FailureKind.SERVER, "injected", "scripted/persona", "k", 6)
            return await base(call)

        return speak

    d = simulate_one(door, row_of(mile, 1), speak=failing_reviews)
    failed = [t for t in d.turns if t.kind is TurnKind.CHECK and t.failure]
    assert len(failed) == 1 and failed[0].failure.startswith("server") and failed[0].data["step"] == "stage"
    kept = [t for t in d.utterances() if t.exchange == 4 and t.speaker == "client"]
    assert kept and kept[0].revision == 0 and d.ended_by is EndReason.MARKER


def test_in_synthesis_mode_the_lawyer_is_supervised_too(mile, door):
    def two_questions(base):
        async def speak(call):
            if call.role.name == "lawyer" and call.purpose == "dialogue" and call.context["own_turns"] == 3:
                return Completion("您的民族是什么？您住在哪里？", "test/x", "k", 1, 1, 0.0, 0.0, 1, False)
            return await base(call)

        return speak

    d = simulate_one(door, row_of(mile, 1), speak=two_questions, options=MileParams(supervise="both"))
    lawyer = [t for t in d.utterances() if t.speaker == "lawyer"]
    assert lawyer[3].revision == 1 and lawyer[3].text.count("？") == 1
    review = next(t for t in d.turns if t.kind is TurnKind.REVIEW and t.exchange == lawyer[3].exchange)
    assert "一个问题" in review.text
    assert d.ended_by is EndReason.MARKER and sum(t.revision for t in lawyer) == 1


# ---------------------------------------------------------------- the generic protocol, without models


class AlwaysAdvise(Reviewer):
    reviews = frozenset({"client"})
    max_revisions = 2

    def __init__(self):
        self.calls = 0

    async def check(self, engine, role, text):
        self.calls += 1
        return Verdict(False, f"第{self.calls}次建议")


def test_the_reviewer_stops_at_max_revisions_and_the_last_revision_is_kept():
    reviewer = AlwaysAdvise()
    scenario = replace(interview(max_turns=1), reviewer=reviewer)
    script = Script({"lawyer": ["请问您的姓名？", "<询问结束>"], "client": ["草稿", "修改一", "修改二"]})
    profiles = {"lawyer": {"template": "T"}, "client": {"name": "张三", "secret": "x"}}
    d = asyncio.run(run_dialogue(scenario, Instance("t/1", "TOYCD", profiles), script))
    kept = [t for t in d.utterances() if t.speaker == "client"]
    assert [t.text for t in kept] == ["修改二"] and kept[0].revision == 2
    assert reviewer.calls == 2  # the second revision is not reviewed: revisions were spent
    drafts = [t.text for t in d.turns if t.kind is TurnKind.DRAFT]
    assert drafts == ["草稿", "修改一"]
    revision_call = next(c for c in script.calls if c.purpose == "revision")
    assert "第1次建议" in revision_call.messages[-1]["content"] and "草稿" in revision_call.messages[-1]["content"]
    assert revision_call.messages[-1]["content"].startswith("请问您的姓名？")  # appended to the incoming message


def test_advice_parsing_and_revision_counting():
    assert parse_advice("**对话监督者**：回复无误", "回复无误", "对话监督者").accepted
    v = parse_advice("**对话监督者**：请补充被告的地址。", "回复无误", "对话监督者")
    assert (v.accepted, v.advice) == (False, "请补充被告的地址。")
    assert revisions_done([], "client") == 0


def test_the_deliverable_request_follows_the_interview_in_the_lawyers_own_chat(mile, door):
    d = simulate_one(door, row_of(mile, 56))
    deliverable = next(t for t in d.turns if t.kind is TurnKind.DELIVERABLE)
    assert deliverable.turn_index == len(d.turns) - 1 and d.deliverable
    assert json.dumps(d.deliverable, ensure_ascii=False).count("被告") >= 1

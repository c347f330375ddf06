"""Fixes made for what the real tiny model wrote, each tested on that output (tests/real/fixtures/)."""

from __future__ import annotations

import json
from pathlib import Path

from steps.judges.pairwise import TIE, parse_verdict
from steps.judges.result import JudgeFailure
from steps.mile.supervisor import TEMPLATES, history_text
from steps.simulate.echo import copies_prompt
from steps.simulate.review import parse_advice
from steps.simulate.templates import render

FIXTURES = json.loads((Path(__file__).parent / "fixtures" / "smollm2_outputs.json").read_text(encoding="utf-8"))


class _History:
    """Just what `history_text` reads from an engine."""

    def __init__(self, turns: list[dict[str, str]]):
        self.dialogue = self
        self._turns = [type("T", (), t)() for t in turns]

    def utterances(self):
        return self._turns


def _review_prompt(case: dict, accept: str = "回复无误") -> str:
    return render(
        TEMPLATES,
        "review_client.j2",
        {
            "stage": "other",
            "less": "",
            "candidate": case["candidate"],
            "history": history_text(_History(case["history"])),
            "accept_phrase": accept,
        },
    )


def test_a_supervisor_that_recites_the_dialogue_gives_no_advice():
    case = FIXTURES["mile_supervisor_echo"]
    prompt = _review_prompt(case)
    # before the fix this answer was taken as advice and sent the client's turn back for revision
    assert not parse_advice(case["answer"], "回复无误").accepted
    assert copies_prompt(case["answer"], prompt)


def test_a_recited_format_line_is_not_an_approval_and_real_advice_is_not_an_echo():
    prompt = _review_prompt(FIXTURES["mile_supervisor_echo"])
    recited = "没有问题时：**对话监督者**：回复无误"  # the prompt's own format line holds the accept phrase
    assert parse_advice(recited, "回复无误").accepted and copies_prompt(recited, prompt)
    own = "**对话监督者**：原告没有说明纠纷的具体内容，请补充对方是谁、发生了什么。"
    assert not copies_prompt(own, prompt)
    assert not copies_prompt("**对话监督者**：回复无误", prompt)  # the short approval itself is no echo


def test_judge_answers_without_a_verdict_are_unparsable_never_ties():
    for case in FIXTURES["ucl_judge_answers"]:  # the tiny judge recited its checklist and stopped at the cap
        outcome, failure, _ = parse_verdict(case["text"])
        assert outcome is None and failure is JudgeFailure.UNPARSABLE


def test_a_judge_that_recites_the_verdict_options_decides_nothing():
    # the shape of the pairwise template's last rule, recited: it names all three verdicts on one line
    recited = (
        "3. 最后单独一行写出结论：对话一中的 AI 助手更好，写 [[1]]；"
        "对话二中的 AI 助手更好，写 [[2]]；两者不相上下，写 [[3]]。"
    )
    outcome, failure, error = parse_verdict(recited)
    assert (outcome, failure) == (None, JudgeFailure.UNPARSABLE) and "only lists the options" in error
    assert parse_verdict(recited + "\n[[3]]")[0] == TIE  # a verdict line of its own still counts
    assert parse_verdict("对话一更好。\n[[1]]")[0] == "win"


def test_half_finished_judge_json_says_it_was_cut_off_and_babble_says_there_is_none():
    from steps.llm.structured import extract_json

    cut, babble = FIXTURES["plawbench_judge_answers"]
    for case, reason in ((cut, "starts but never closes"), (babble, "no JSON object")):
        try:
            extract_json(case["text"])
        except ValueError as error:
            assert reason in str(error)
        else:
            raise AssertionError(f"parsed: {case['text'][:80]}")

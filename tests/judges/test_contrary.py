"""`scripted/judge_contrary`: the proxy judge's answer turned around (10 − a pointwise score, [[1]] ↔ [[2]], a rubric's
withheld points, flags, fails and penalties the other way, 11 − a 1–10 grade)."""

from __future__ import annotations

import json

from steps.judges.scripted_contrary import contrary, contrary_judge
from steps.llm import ScriptedRequest
from steps.llm.scripted import policy_for


def test_scores_and_verdicts_are_turned_around_and_other_answers_kept():
    assert json.loads(contrary('{"score": 7, "reason": "r"}')) == {"score": 3, "reason": "r"}
    assert json.loads(contrary('{"score": 10.0, "reason": ""}'))["score"] == 0.0
    assert contrary("第一份更好。[[1]]") == "第一份更好。[[2]]"
    assert contrary("[[2]]") == "[[1]]" and contrary("平局 [[3]]") == "平局 [[3]]"
    assert contrary('{"score": 42}') == '{"score": 42}'  # not on the 0–10 scale: kept
    assert contrary('{"items": [1, 0]}') == '{"items": [1, 0]}'


def test_it_answers_what_the_proxy_would_have_answered_turned_around():
    request = ScriptedRequest(
        "judge_contrary", [], {"judge_kind": "pointwise", "reference": "甲乙丙丁戊", "candidate": "甲乙丙丁戊"}
    )
    assert json.loads(contrary_judge(request))["score"] == 0  # the proxy gives 10


RUBRIC_ITEMS = [
    {"id": "a1", "kind": "award", "points": 4, "key_phrases": ["起诉状", "原告"], "error_hint": "缺少原告"},
    {"id": "a2", "kind": "award", "points": 2, "key_phrases": ["证据"], "error_hint": "未列证据"},
    {"id": "f1", "kind": "fail", "key_phrases": ["法院"]},
    {"id": "p1", "kind": "penalty", "key_phrases": ["诉讼请求"]},
]


def test_rubric_items_flags_fails_and_penalties_are_turned_around():
    # the proxy: a1 earns 4 × 1/2 (起诉状 only) = 2, short of 4 → its hint; a2 earns 0; no 法院 → the fail
    # triggers; 诉讼请求 present → the penalty does not apply
    meta = {"judge_kind": "rubric", "items": RUBRIC_ITEMS, "response": "这是起诉状，列明诉讼请求。"}
    proxy = json.loads(policy_answer(meta))
    assert [(i["id"], i["awarded"], i["error"]) for i in proxy["items"]] == [
        ("a1", 2, "缺少原告"),
        ("a2", 0, "未列证据"),
    ]
    assert proxy["fails"][0]["triggered"] is True and proxy["penalties"][0]["times"] == 0
    turned = json.loads(contrary_judge(ScriptedRequest("judge_contrary", [], meta)))
    # the points withheld: 4 − 2 = 2 (still short: the hint), 2 − 0 = 2 (full: no error)
    assert [(i["id"], i["awarded"], i["error"]) for i in turned["items"]] == [("a1", 2, "缺少原告"), ("a2", 2, None)]
    assert turned["fails"][0]["triggered"] is False and turned["penalties"][0]["times"] == 1
    assert sum(i["awarded"] for i in proxy["items"]) + sum(i["awarded"] for i in turned["items"]) == 4 + 2

    flags = {**meta, "verdict": "flags"}  # met at ≥ half the key phrases: a1 met (1/2), a2 not (0/1)
    assert [i["met"] for i in json.loads(policy_answer(flags))["items"]] == [True, False]
    turned = json.loads(contrary_judge(ScriptedRequest("judge_contrary", [], flags)))
    assert [i["met"] for i in turned["items"]] == [False, True]
    assert contrary('{"items": [{"id": "x", "times": 3}], "penalties": [{"id": "p", "times": 2}]}') == (
        '{"items": [{"id": "x", "times": 3}], "penalties": [{"id": "p", "times": 0}]}'
    )


def test_graded_answers_get_eleven_minus_each_grade():
    assert json.loads(contrary('{"g0": 9, "g1": 1, "g2": 5.5, "解释": "r"}')) == {
        "g0": 2,
        "g1": 10,
        "g2": 5.5,
        "解释": "r",
    }
    assert contrary('{"g0": 11, "解释": ""}') == '{"g0": 11, "解释": ""}'  # off the 1–10 scale: kept
    assert contrary('{"result": ["A", "B"]}') == '{"result": ["A", "B"]}'  # a benchmark's own kind: kept


def test_mile_graded_proxy_answers_are_turned_around():
    import steps.mile.proxy  # noqa: F401  (registers MILE's proxy judge)
    from steps.mile.judging import SCENARIO

    # every statement in the first person: the proxy grades consistency 1 + 9 × 1 = 10; the contrary 11 − 10 = 1
    meta = {"scenario": SCENARIO, "judge_kind": "mile.consistency", "statements": ["我借给他五万元。", "我没收到。"]}
    assert json.loads(policy_for("judge", SCENARIO)(ScriptedRequest("judge", [], meta)))["分数"] == 10
    assert json.loads(contrary_judge(ScriptedRequest("judge_contrary", [], meta)))["分数"] == 1


def policy_answer(metadata: dict) -> str:
    return policy_for("judge", "*")(ScriptedRequest("judge", [], metadata))

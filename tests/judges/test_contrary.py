"""`scripted/judge_contrary`: the proxy judge's answer turned around (10 − a pointwise score, [[1]] ↔ [[2]])."""

from __future__ import annotations

import json

from steps.judges.scripted_contrary import contrary, contrary_judge
from steps.llm import ScriptedRequest


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

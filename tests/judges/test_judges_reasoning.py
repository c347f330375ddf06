"""Issue 38 item 5 for judges (every benchmark's judge stages use these): a judge served by a reasoning model
(`<think>…</think>answer`, or the trace in `reasoning_content`) reaches the same verdicts as one answering
`answer`, though its trace holds another score and other verdict marks; the judged row's `raw` is the answer."""

from __future__ import annotations

import pytest

from steps.judges import Comparison, judge_pairwise, judge_pointwise
from tests.judges.conftest import http_judge, run
from tests.reasoning_forms import FORMS, serve

CASE = Comparison(reference="被告应偿还借款一万元。", candidate="判令被告还款一万元。")
POINTWISE = '{"score": 8, "reason": "要点齐全"}'
POINTWISE_TRACE = '草稿：{"score": 2, "reason": "太短"}？不对，再想想。'
TEMPLATE = "问题：{{ question }}\n回答一：{{ answer_1 }}\n回答二：{{ answer_2 }}\n请比较，最后写出[[1]]、[[2]]或[[3]]。"


def prefers_good(body: dict) -> str:
    return "[[1]]" if "回答一：好答案" in body["messages"][0]["content"] else "[[2]]"


def doubts(body: dict) -> str:  # the trace ends on the opposite verdict: read, it would flip the outcome
    return "先倾向[[1]]，又倾向[[2]]，" + ("最后[[2]]" if prefers_good(body) == "[[1]]" else "最后[[1]]")


@pytest.mark.parametrize("form", FORMS)
def test_a_reasoning_judge_scores_as_a_plain_one(door, form):
    with serve(form, lambda body: POINTWISE, lambda body: POINTWISE_TRACE) as server:
        result = run(judge_pointwise(door, http_judge(server), CASE))
    assert (result.value, result.failure, result.attempts, result.raw) == (0.8, None, 1, POINTWISE)


@pytest.mark.parametrize("form", FORMS)
def test_a_reasoning_pairwise_judge_gives_the_same_verdicts(door, form):
    with serve(form, prefers_good, doubts) as server:
        result = run(
            judge_pairwise(
                door,
                http_judge(server),
                template=TEMPLATE,
                candidate="好答案：应当还款。",
                baseline="不知道。",
                context={"question": "借款到期不还怎么办？"},
                name="test.pairwise",
            )
        )
    assert (result.value, result.evidence["candidate_outcomes"]) == (1.0, ["win", "win"])

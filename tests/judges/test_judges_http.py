"""Judges through the real HTTP path (litellm → fake OpenAI-compatible server): malformed answers are repaired
once and then recorded as judge failures, never scored 0; call failures are recorded."""

from __future__ import annotations

import json

import pytest

from steps.j1.eval.courts import court
from steps.j1.eval.metrics import trial_validity
from steps.j1.eval.procedure import judge_procedure
from steps.j1.params import J1ProcedureParams
from steps.judges import (
    Comparison,
    JudgeFailure,
    Judgement,
    RubricItem,
    judge_pairwise,
    judge_pointwise,
    judge_rubric,
)
from steps.llm.config import Decoding
from tests.judges.conftest import http_judge, run
from tests.judges.trials import CRIMINAL_JUDGMENT, CRIMINAL_ORACLE_STEPS, exchanges

CASE = Comparison(reference="被告应偿还借款一万元。", candidate="判令被告还款一万元。")
GOOD = '{"score": 8, "reason": "要点齐全"}'


def last_user(body: dict) -> str:
    return [m for m in body["messages"] if m["role"] == "user"][-1]["content"]


def prompt_of(body: dict) -> str:
    return body["messages"][0]["content"]


# ---------------------------------------------------------------- pointwise


def test_a_valid_answer_is_used_as_is(answers, door):
    server, _ = answers('```json\n{"score": 7, "reason": "基本覆盖"}\n```')
    result = run(judge_pointwise(door, http_judge(server), CASE))
    assert (result.value, result.failure, result.attempts, result.proxy) == (0.7, None, 1, False)
    assert result.evidence == {"score": 7.0, "reason": "基本覆盖"}
    assert result.judge_model == "hosted_vllm/test-model" and result.prompt_version.startswith("pointwise@")


def test_non_json_is_repaired_once_and_the_repair_is_used(answers, door):
    server, script = answers("我认为得分是八分。", GOOD)
    result = run(judge_pointwise(door, http_judge(server), CASE))
    assert (result.value, result.failure, result.attempts) == (0.8, None, 2)
    assert len(script.bodies) == 2 and "无法按要求解析" in last_user(script.bodies[1])
    assert script.bodies[1]["messages"][1] == {"role": "assistant", "content": "我认为得分是八分。"}


@pytest.mark.parametrize(
    ("answer", "failure", "detail"),
    [
        ("我认为得分是八分。", JudgeFailure.UNPARSABLE, "no JSON object"),
        ('{"score": 7}', JudgeFailure.UNPARSABLE, "reason"),
        ('{"score": "很好", "reason": "x"}', JudgeFailure.UNPARSABLE, "score"),
        ('{"score": 15, "reason": "满分以上"}', JudgeFailure.OUT_OF_RANGE, "less than or equal to 10"),
        ('{"score": -1, "reason": "负分"}', JudgeFailure.OUT_OF_RANGE, "greater than or equal to 0"),
    ],
)
def test_malformed_twice_is_a_judge_failure_not_a_zero(answers, door, answer, failure, detail):
    server, script = answers(answer)
    result = run(judge_pointwise(door, http_judge(server), CASE))
    assert (result.value, result.failure, result.attempts, len(script.bodies)) == (None, failure, 2, 2)
    assert detail in result.error and result.raw == answer and result.evidence == {}


def test_out_of_range_then_valid_is_repaired_with_the_bound_shown(answers, door):
    server, script = answers('{"score": 15, "reason": "x"}', '{"score": 9, "reason": "y"}')
    result = run(judge_pointwise(door, http_judge(server), CASE))
    assert result.value == 0.9 and "score" in last_user(script.bodies[1])


def test_a_call_failure_is_recorded_without_a_repair(answers, door):
    server, script = answers(GOOD)
    server.inject(("400",))
    result = run(judge_pointwise(door, http_judge(server), CASE))
    assert (result.value, result.failure, result.attempts) == (None, JudgeFailure.CALL_FAILED, 1)
    assert result.error.startswith("bad_request") and script.bodies == []


def test_a_call_failure_during_the_repair_is_a_call_failure(answers, door):
    holder = {}

    def invalid_then_fail(body):
        holder["server"].inject(("400",))  # the repair request will be refused
        return "不是 JSON"

    server, _ = answers(invalid_then_fail)
    holder["server"] = server
    result = run(judge_pointwise(door, http_judge(server), CASE))
    assert (result.value, result.failure) == (None, JudgeFailure.CALL_FAILED)


def test_a_judgement_has_a_value_or_a_failure():
    with pytest.raises(ValueError):
        Judgement(None, None, "", "v", "m", False)
    with pytest.raises(ValueError):
        Judgement(0.5, JudgeFailure.UNPARSABLE, "", "v", "m", False)
    with pytest.raises(ValueError):
        Judgement(1.2, None, "", "v", "m", False)


# ---------------------------------------------------------------- procedure (III-1)

CRIMINAL = court("criminal")
STAGES = {
    1: "court_preparation",
    2: "court_preparation",
    3: "court_preparation",
    4: "court_preparation",
    5: "court_preparation",
    6: "court_preparation",
    7: "court_preparation",
    8: "court_investigation",
    9: "court_judgment",
}


def procedure_server(checklist_yes: dict[str, set[str]], stage_of=STAGES):
    """Labels from `stage_of`; the checklist answers 是 for the ids in `checklist_yes[stage]`."""

    def reply(body):
        prompt = prompt_of(body)
        if "待标注的对话" in prompt:
            section = prompt.rsplit("【待标注的对话】", 1)[1]
            turns = [n for n in stage_of if f"第{n}轮" in section]
            return json.dumps({"result": [{"turn": f"第{n}轮", "court_stage": stage_of[n]} for n in turns]})
        stage = next(s.key for s in CRIMINAL.stages if f"（{s.key}）阶段" in prompt)
        yes = checklist_yes.get(stage, set())
        result = [{"id": i.id, "answer": "是" if i.id in yes else "否", "reason": "…"} for i in CRIMINAL.items]
        return json.dumps({"result": result}, ensure_ascii=False)

    return reply


def criminal_trial():
    trial = exchanges(CRIMINAL_ORACLE_STEPS)
    return trial, trial_validity(trial, CRIMINAL_JUDGMENT)


def test_sta_act_and_iii1_by_hand(answers, door):
    yes = {
        # R5 missing in its own stage; R8 answered 是 in the wrong stage's unit, which must not count there
        "court_preparation": {"R1", "R2", "R3", "R4", "R6", "R7", "R8"},
        "court_investigation": {"R8", "R1"},  # R1 here is another stage's item: ignored
        "court_judgment": {"R9"},
    }
    server, script = answers(procedure_server(yes))
    trial, validity = criminal_trial()
    score = run(
        judge_procedure(door, http_judge(server), CRIMINAL, trial, validity, config=J1ProcedureParams(window=5))
    )
    assert score.act == pytest.approx(8 / 9)  # R1-R4, R6-R9
    assert score.sta == pytest.approx(2 / 3)  # preparation lacks R5
    assert score.judgement.value == pytest.approx((2 / 3 + 8 / 9) / 2)
    assert score.uni == 1 and score.labels == STAGES and not score.answers["R5"]
    assert len(script.bodies) == 2 + 3  # two label windows, one checklist per reached stage
    second_window = (
        last_user(script.bodies[1]) if "第6轮" in last_user(script.bodies[1]) else last_user(script.bodies[0])
    )
    assert "【此前的对话】" in second_window and "第1轮" in second_window.rsplit("【待标注的对话】", 1)[0]


def test_a_stage_no_exchange_reached_is_no_without_a_call(answers, door):
    no_investigation = {**STAGES, 8: "court_preparation"}
    everything = {s.key: {i.id for i in CRIMINAL.items} for s in CRIMINAL.stages}
    server, script = answers(procedure_server(everything, no_investigation))
    trial, validity = criminal_trial()
    one_window = J1ProcedureParams(window=10)
    score = run(judge_procedure(door, http_judge(server), CRIMINAL, trial, validity, config=one_window))
    assert not score.answers["R8"] and score.act == pytest.approx(8 / 9) and score.sta == pytest.approx(2 / 3)
    assert len(script.bodies) == 1 + 2


def test_unknown_stage_twice_is_an_out_of_range_failure(answers, door):
    server, script = answers(procedure_server({}, {n: "court_debate" for n in STAGES}))  # no debate in criminal court
    trial, validity = criminal_trial()
    score = run(judge_procedure(door, http_judge(server), CRIMINAL, trial, validity))
    assert (score.judgement.value, score.judgement.failure, score.sta, score.act) == (
        None,
        JudgeFailure.OUT_OF_RANGE,
        None,
        None,
    )
    assert "unknown stage court_debate" in score.judgement.error
    assert len(script.bodies) == 4  # two windows, each repaired once


def test_incomplete_checklist_is_repaired(answers, door):
    full = procedure_server({s.key: {i.id for i in CRIMINAL.items} for s in CRIMINAL.stages})
    state = {"cut": set()}

    def reply(body):
        answer = json.loads(full(body))
        if "待标注的对话" not in prompt_of(body) and "unit" not in state["cut"]:
            state["cut"].add("unit")
            answer["result"] = answer["result"][:-1]  # one item left out, once
        return json.dumps(answer, ensure_ascii=False)

    server, _ = answers(reply)
    trial, validity = criminal_trial()
    score = run(judge_procedure(door, http_judge(server), CRIMINAL, trial, validity))
    assert score.judgement.failure is None and score.act == 1.0 and score.sta == 1.0


def test_an_invalid_trial_scores_zero_without_calls(answers, door):
    server, script = answers(GOOD)
    trial = exchanges(CRIMINAL_ORACLE_STEPS[:-1])
    score = run(judge_procedure(door, http_judge(server), CRIMINAL, trial, trial_validity(trial, None)))
    assert (score.judgement.value, score.sta, score.act, score.uni) == (0.0, 0.0, 0.0, 0)
    assert score.judgement.evidence["invalid"] == "no_judgment" and script.bodies == []


# ---------------------------------------------------------------- pairwise

TEMPLATE = "问题：{{ question }}\n回答一：{{ answer_1 }}\n回答二：{{ answer_2 }}\n请比较，最后写出[[1]]、[[2]]或[[3]]。"


def pairwise(door, server, candidate="好答案：应当还款。", baseline="不知道。"):
    return run(
        judge_pairwise(
            door,
            http_judge(server),
            template=TEMPLATE,
            candidate=candidate,
            baseline=baseline,
            context={"question": "借款到期不还怎么办？"},
            name="test.pairwise",
        )
    )


def prefers_good(body):
    prompt = prompt_of(body)
    return "分析如下。[[1]]" if "回答一：好答案" in prompt else "分析如下。[[2]]"


def test_both_orders_mapped_back_to_the_candidate(answers, door):
    server, script = answers(prefers_good)
    result = pairwise(door, server)
    assert (result.value, result.evidence["candidate_outcomes"], result.evidence["consistent"]) == (
        1.0,
        ["win", "win"],
        True,
    )
    prompts = sorted(last_user(b) for b in script.bodies)
    assert any("回答一：好答案" in p for p in prompts) and any("回答二：好答案" in p for p in prompts)
    assert pairwise(door, server, candidate="不知道。", baseline="好答案：应当还款。").value == 0.0


def test_position_bias_shows_as_an_inconsistent_pair(answers, door):
    server, _ = answers("第一份更好。[[1]]")
    result = pairwise(door, server)
    assert (result.value, result.evidence["candidate_outcomes"], result.evidence["consistent"]) == (
        0.5,
        ["win", "lose"],
        False,
    )


def test_the_last_verdict_wins_and_ties_count_half(answers, door):
    server, _ = answers("起初倾向[[2]]，但综合考虑应为[[1]]。")
    assert pairwise(door, server).evidence["candidate_outcomes"] == ["win", "lose"]
    server, _ = answers("两者相当。[[3]]")
    assert pairwise(door, server).value == 0.5


def test_missing_verdict_is_repaired_then_a_failure(answers, door):
    server, _ = answers("两份回答各有千秋。", prefers_good)
    repaired = pairwise(door, server)
    assert repaired.failure is None and repaired.attempts == 3  # one order needed the repair round
    server, _ = answers("两份回答各有千秋。")
    failed = pairwise(door, server)
    assert (failed.value, failed.failure, failed.attempts) == (None, JudgeFailure.UNPARSABLE, 4)
    server, _ = answers("结论：[[4]]")
    assert pairwise(door, server).failure is JudgeFailure.OUT_OF_RANGE
    server, _ = answers(prefers_good)
    server.inject(("400",))
    assert pairwise(door, server).failure is JudgeFailure.CALL_FAILED


# ---------------------------------------------------------------- rubric

ITEMS = [RubricItem("A", "指出借款合同合法有效", 5), RubricItem("B", "说明诉讼时效为三年", 3)]


def rubric(door, server, **kw):
    judge = http_judge(server)
    return run(judge_rubric(door, judge, response="借款合同有效。", items=ITEMS, question="怎么办？", **kw))


def test_a_valid_rubric_answer_is_added_up_in_code(answers, door):
    server, _ = answers(
        '```json\n{"items": [{"id": "A", "awarded": 5, "justification": "好"}, {"id": "[B]", "awarded": 1.5}]}\n```'
    )
    result = rubric(door, server)
    assert result.value == pytest.approx(6.5 / 8) and result.evidence["clamped"] == 0
    assert [(r["id"], r["awarded"]) for r in result.evidence["items"]] == [("A", 5), ("B", 1.5)]


def test_points_outside_an_item_are_repaired_then_an_out_of_range_failure(answers, door):
    beyond = '{"items": [{"id": "A", "awarded": 7, "justification": "好"}, {"id": "B", "awarded": -1}]}'
    server, script = answers(beyond, '{"items": [{"id": "A", "awarded": 5}, {"id": "B", "awarded": 0}]}')
    assert rubric(door, server).value == pytest.approx(5 / 8) and "not in [0, 5]" in last_user(script.bodies[1])
    server, _ = answers(beyond)
    failed = rubric(door, server)
    assert (failed.value, failed.failure, failed.attempts) == (None, JudgeFailure.OUT_OF_RANGE, 2)
    assert "A: 7 not in [0, 5]" in failed.error and "B: -1" in failed.error


def test_a_missing_item_is_repaired_then_a_failure(answers, door):
    partial = '{"items": [{"id": "A", "awarded": 4, "justification": "部分"}]}'
    full = '{"items": [{"id": "A", "awarded": 4}, {"id": "B", "awarded": 3}]}'
    server, script = answers(partial, full)
    assert rubric(door, server).value == pytest.approx(7 / 8) and "B" in last_user(script.bodies[1])
    server, _ = answers(partial)
    assert rubric(door, server).failure is JudgeFailure.UNPARSABLE
    server, _ = answers('{"items": [{"id": "A", "awarded": "四分"}, {"id": "B", "awarded": 3}]}')
    assert rubric(door, server).failure is JudgeFailure.UNPARSABLE
    server, script = answers("A 项 5 分，B 项 3 分。")
    failed = rubric(door, server, repairs=2)
    assert (failed.failure, failed.attempts, len(script.bodies)) == (JudgeFailure.UNPARSABLE, 3, 3)


# ---------------------------------------------------------------- graded, cut at max_tokens
GRADED = ("互动性", "专业性", "逻辑性")


@pytest.mark.parametrize(
    ("answer", "cut", "grades"),
    [
        # MILE's paper judge asks at most 50 tokens: the grades come first, the explanation is cut
        ('{"互动性": 9, "专业性": 7, "逻辑性": 8, "解释": "先安慰原告再推进到', True, (9, 7, 8)),
        ('{"互动性": 9, "专业性": 7, "逻辑', True, None),  # a grade lost to the cut: no reading
        ('{"互动性": 9, "专业性": 12, "逻辑性": 8, "解释": "先', True, None),  # a grade outside the scale
        ('{"互动性": 9, "专业性": 7, "逻辑性": 8, "解释": "先安慰原告再推进到', False, None),  # not cut: malformed
    ],
)
def test_a_graded_answer_cut_at_max_tokens_is_read_when_every_grade_came_first(answers, door, answer, cut, grades):
    from steps.judges.graded import Scale, judge_graded

    server, script = answers(answer)
    if cut:
        server.inject(("cut",), ("cut",))  # the answer and its repair both end at max_tokens
    model = http_judge(server).model_copy(update={"decoding": Decoding(temperature=0, max_tokens=50)})
    got = run(judge_graded(door, model, "评分", Scale(GRADED), prompt_version="t@1"))
    assert len(script.bodies) == 2 and {b["max_tokens"] for b in script.bodies} == {50}
    if grades is None:
        assert all(j.value is None and j.failure == JudgeFailure.UNPARSABLE for j in got.values())
        return
    for key, grade in zip(GRADED, grades, strict=True):
        judgement = got[key]
        assert (judgement.value, judgement.failure) == (pytest.approx((grade - 1) / 9), None)
        assert judgement.evidence == {"score": grade, "reason": "", "cut_at_max_tokens": True}
        assert judgement.truncated and judgement.attempts == 2

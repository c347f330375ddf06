"""CI/CR scoring of a whole trial, hand-computed: UNI, III-1 by the (proxy) procedure judge, III-2/III-5 wiring,
III-3, III-4, III-6, and the failed-trial values the paper uses."""

from __future__ import annotations

import math

import pytest

from steps.j1.envs.common.profiles import CITruth, CRTruth
from steps.j1.params import J1EvalParams
from steps.judges.result import JudgeFailure
from tests.j1.eval.conftest import evaluate, make_case, utterance
from tests.judges.trials import (
    CIVIL_JUDGMENT,
    CIVIL_ORACLE_STEPS,
    CRIMINAL_CARELESS_STEPS,
    CRIMINAL_JUDGMENT,
    CRIMINAL_ORACLE_STEPS,
)

ROLES = {
    "原告代理律师": "plaintiff_lawyer",
    "被告代理律师": "defendant_lawyer",
    "被告人": "defendant",
    "被告辩护人": "defence",
    "公诉机关": "procurator",
}


def transcript(steps: list[tuple[str, str | None, str | None]]) -> list[dict]:
    turns = []
    for i, (said, party, reply) in enumerate(steps, 1):
        turns.append(utterance(i, "judge", said))
        if party:
            turns.append(utterance(i, ROLES[party], reply))
    return turns


CI_TRUTH = CITruth.model_validate(
    {
        "rulings": [
            "一、被告于本判决生效之日起十日内偿还原告借款50000元；",
            "二、驳回原告的其他诉讼请求。",
            "如不服本判决，可以在判决书送达之日起十五日内提起上诉。",
        ],
        "reasoning": "本院认为，原告与被告之间的借款关系合法有效，被告应当偿还借款。",
        "laws": [
            {"law": "《中华人民共和国民法典》", "article": 675},
            {"law": "《中华人民共和国民法典》", "article": 676},
            {"law": "《中华人民共和国民事诉讼法》", "article": 67},
        ],
    }
)


def civil_case(steps=CIVIL_ORACLE_STEPS, judgment: str | None = CIVIL_JUDGMENT, **kwargs):
    return make_case("CI", CI_TRUTH, transcript(steps), text=judgment, **kwargs)


def test_a_diligent_civil_trial_by_hand(panel):
    judge = panel({"III-2": 0.7, "III-5": 0.4})
    rows = evaluate(civil_case(), judge)
    assert rows[("III-1", "UNI")].value == 1.0
    # the proxy judge finds every stage and item of the diligent transcript
    assert (rows[("III-1", "STA")].value, rows[("III-1", "ACT")].value, rows[("III-1", "")].value) == (1.0, 1.0, 1.0)
    assert rows[("III-1", "")].judge_proxy and rows[("III-1", "")].evidence["labels"]["15"] == "court_judgment"
    assert (rows[("III-2", "")].value, rows[("III-5", "")].value) == (0.7, 0.4)
    # III-6: the judgment cites 675 and 676 of the three pairs of the court
    assert rows[("III-6", "")].value == pytest.approx(2 / 3) and rows[("III-6", "precision")].value == 1.0
    assert rows[("III-6", "f1")].value == pytest.approx(0.8)
    # what the judges compare: numbered rulings without the appeal notice; reasoning without its 本院认为 lead
    rulings = judge.asked["III-2"]
    assert rulings.reference == "一、被告于本判决生效之日起十日内偿还原告借款50000元；\n二、驳回原告的其他诉讼请求。"
    assert rulings.candidate.startswith("一、被告于本判决生效之日起十日内偿还原告借款50000元")
    reasoning = judge.asked["III-5"]
    assert reasoning.reference == "原告与被告之间的借款关系合法有效，被告应当偿还借款。"
    assert reasoning.candidate.startswith("原告与被告之间的借款关系合法有效") and "判决如下" not in reasoning.candidate


def test_a_trial_without_a_judgment_is_failed_on_every_metric(panel):
    judge = panel()
    rows = evaluate(civil_case(CIVIL_ORACLE_STEPS[:-1], None, ended_by="max_turns"), judge)
    assert rows[("III-1", "UNI")].value == 0.0 and rows[("III-1", "UNI")].evidence["invalid"] == "no_judgment"
    for key in [("III-1", ""), ("III-1", "STA"), ("III-1", "ACT"), ("III-2", ""), ("III-5", ""), ("III-6", "")]:
        assert (rows[key].value, rows[key].status) == (0.0, "failed_task"), key
    assert judge.asked == {}


def test_too_short_a_trial_is_invalid(panel):
    steps = [CIVIL_ORACLE_STEPS[0], CIVIL_ORACLE_STEPS[7], (CIVIL_JUDGMENT, None, None)]
    rows = evaluate(civil_case(steps), panel())
    assert rows[("III-1", "UNI")].evidence["invalid"] == "too_short" and rows[("III-2", "")].value == 0.0
    allowed = evaluate(civil_case(steps), panel({"III-2": 0.7}), J1EvalParams(min_exchanges=3))
    assert allowed[("III-1", "UNI")].value == 1.0 and allowed[("III-2", "")].value == 0.7
    assert 0 < allowed[("III-1", "")].value < 1  # a three-exchange trial misses most of the procedure


CR_TRUTH = {
    "defendant": "张三",
    "charges": ["盗窃"],
    "penalty": "有期徒刑",
    "prison_months": 12.0,
    "fine_yuan": 5000.0,
    "rulings": [],
    "reasoning": "本院认为，被告人张三秘密窃取他人财物，数额较大，构成盗窃罪。",
    "laws": [{"law": "《中华人民共和国刑法》", "article": 264}],
}


def criminal_case(steps=CRIMINAL_ORACLE_STEPS, judgment: str | None = CRIMINAL_JUDGMENT, **truth):
    return make_case("CR", CRTruth.model_validate({**CR_TRUTH, **truth}), transcript(steps), text=judgment)


def ratio(d: float) -> float:
    return d / (1 + d)


def test_a_criminal_trial_by_hand(panel):
    rows = evaluate(criminal_case(), panel({"III-5": 0.5}))
    assert rows[("III-1", "")].value == 1.0 and rows[("III-3", "")].value == 1.0
    assert (rows[("III-4", "")].value, rows[("III-4", "SEN")].value, rows[("III-4", "FINE")].value) == (0, 0, 0)
    assert rows[("III-6", "")].value == 1.0 and ("III-2", "") not in rows
    # the court fined 2,000 yuan, the agent 5,000: FINE = d/(1+d), d = |ln 5001 - ln 2001|; SEN exact
    off = evaluate(criminal_case(fine_yuan=2000.0), panel())
    fine = ratio(abs(math.log(5001) - math.log(2001)))
    assert off[("III-4", "FINE")].value == pytest.approx(fine) and off[("III-4", "")].value == pytest.approx(fine / 2)
    clipped = evaluate(criminal_case(fine_yuan=2000.0), panel(), J1EvalParams(penalty_normaliser="clip"))
    assert clipped[("III-4", "FINE")].value == pytest.approx(min(abs(math.log(5001 / 2001)), 1.0))


def test_multi_charge_truth_needs_every_charge(panel):
    rows = evaluate(criminal_case(charges=["盗窃", "诈骗"]), panel())
    assert rows[("III-3", "")].value == 0.0 and rows[("III-3", "partial")].value == 0.5


def test_a_court_sentence_of_life_leaves_sen_out(panel):
    rows = evaluate(criminal_case(penalty="无期徒刑", prison_months=None, fine_yuan=None), panel())
    assert rows[("III-4", "SEN")].status == "skipped"
    assert rows[("III-4", "FINE")].value == pytest.approx(ratio(math.log(5001)))
    assert rows[("III-4", "")].value == pytest.approx(ratio(math.log(5001)))


def test_a_single_turn_collapse_is_a_failure_with_iii4_at_one(panel):
    judge = panel()
    rows = evaluate(criminal_case([(CRIMINAL_JUDGMENT, None, None), *CRIMINAL_CARELESS_STEPS[:3]]), judge)
    assert rows[("III-1", "UNI")].evidence["invalid"] == "single_turn_collapse"
    assert [rows[("III-4", c)].value for c in ("", "SEN", "FINE")] == [1.0, 1.0, 1.0]
    assert [rows[(m, "")].value for m in ("III-1", "III-3", "III-5", "III-6")] == [0.0] * 4
    assert all(r.status == "failed_task" for (m, c), r in rows.items() if c != "UNI") and judge.asked == {}


def test_a_failed_judge_leaves_its_metrics_unscored_and_the_rules_untouched(panel):
    rows = evaluate(criminal_case(), panel({"III-5": JudgeFailure.CALL_FAILED}))
    assert (rows[("III-5", "")].value, rows[("III-5", "")].status) == (None, "judge_failed")
    assert rows[("III-3", "")].value == 1.0 and rows[("III-1", "")].value == 1.0

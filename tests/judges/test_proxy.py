"""The proxy judge (scripted/judge) runs offline, marks its numbers as proxy, and orders an oracle above a null
agent on every judge kind."""

from __future__ import annotations

import pytest

from steps.j1.eval.courts import court
from steps.j1.eval.metrics import trial_validity
from steps.j1.eval.procedure import judge_procedure
from steps.judges import Comparison, RubricItem, judge_pairwise, judge_pointwise, judge_rubric
from steps.judges.scripted import overlap
from tests.judges.conftest import PROXY, run
from tests.judges.trials import (
    CIVIL_CARELESS_STEPS,
    CIVIL_JUDGMENT,
    CIVIL_ORACLE_STEPS,
    CRIMINAL_CARELESS_STEPS,
    CRIMINAL_JUDGMENT,
    CRIMINAL_ORACLE_STEPS,
    exchanges,
)

REFERENCE = "被告于本判决生效之日起十日内偿还原告借款50000元，并驳回原告的其他诉讼请求。"
OFF_TOPIC = "今天的天气很好，适合出门散步，晚上可以看一场电影。"


def pointwise(door, candidate):
    return run(judge_pointwise(door, PROXY, Comparison(REFERENCE, candidate)))


def test_pointwise_orders_oracle_paraphrase_off_topic_and_null(door):
    oracle, paraphrase = pointwise(door, REFERENCE), pointwise(door, "被告应在十日内偿还原告借款50000元。")
    off_topic, null = pointwise(door, OFF_TOPIC), pointwise(door, "")
    assert oracle.value == 1.0 and null.value == 0.0
    assert oracle.value > paraphrase.value > off_topic.value
    assert all(j.proxy and j.failure is None for j in (oracle, paraphrase, off_topic, null))


def test_overlap_is_symmetric_bigram_f1():
    assert overlap("借款合同", "借款合同") == 1.0
    assert overlap("借款合同", "") == 0.0
    assert overlap("借款合同", "借款") == pytest.approx(2 * (1 / 1) * (1 / 3) / (1 + 1 / 3))


@pytest.mark.parametrize(
    ("kind", "oracle_steps", "careless_steps", "final"),
    [
        ("civil", CIVIL_ORACLE_STEPS, CIVIL_CARELESS_STEPS, CIVIL_JUDGMENT),
        ("criminal", CRIMINAL_ORACLE_STEPS, CRIMINAL_CARELESS_STEPS, CRIMINAL_JUDGMENT),
    ],
)
def test_procedure_orders_a_diligent_judge_above_a_careless_one_above_null(
    door, kind, oracle_steps, careless_steps, final
):
    scores = []
    for steps, judgment in ((oracle_steps, final), (careless_steps, final), (careless_steps[:-1], None)):
        trial = exchanges(steps)
        scores.append(run(judge_procedure(door, PROXY, court(kind), trial, trial_validity(trial, judgment))))
    oracle, careless, null = scores
    assert oracle.judgement.value > careless.judgement.value > null.judgement.value == 0.0
    assert oracle.act > 0.8 and oracle.judgement.proxy and null.uni == 0


def test_civil_oracle_stages_are_labelled_in_procedural_order(door):
    trial = exchanges(CIVIL_ORACLE_STEPS)
    score = run(judge_procedure(door, PROXY, court("civil"), trial, trial_validity(trial, CIVIL_JUDGMENT)))
    order = [s.key for s in court("civil").stages]
    labels = [score.labels[e.index] for e in trial]
    assert labels == sorted(labels, key=order.index) and set(labels) == set(order)
    assert score.sta == 1.0 and score.act == 1.0


TEMPLATE = "回答一：{{ answer_1 }}\n回答二：{{ answer_2 }}\n请给出[[1]]、[[2]]或[[3]]。"


def pairwise(door, candidate, baseline, reference=None):
    meta = {"reference": reference} if reference else {}
    return run(
        judge_pairwise(door, PROXY, template=TEMPLATE, candidate=candidate, baseline=baseline, metadata=meta)
    ).value


def test_pairwise_prefers_the_oracle_in_both_orders(door):
    assert pairwise(door, REFERENCE, "") == 1.0
    assert pairwise(door, "", REFERENCE) == 0.0
    assert pairwise(door, REFERENCE, OFF_TOPIC, reference=REFERENCE) == 1.0
    assert pairwise(door, REFERENCE, REFERENCE) == 0.5


def test_rubric_rewards_key_phrases(door):
    items = [
        RubricItem("A", "指出借款合同合法有效", 5, key_phrases=("合法有效",)),
        RubricItem("B", "说明诉讼时效为三年", 3, key_phrases=("诉讼时效", "三年")),
    ]
    oracle = "借款合同合法有效；诉讼时效为三年。"

    def score(response):
        return run(judge_rubric(door, PROXY, response=response, items=items)).value

    assert score(oracle) == 1.0 and score("诉讼时效很长。") == pytest.approx(1.5 / 8) and score("") == 0.0
    # without key phrases: the share of the item's 9 bigrams in the response (7: 指出 and 出借 are missing)
    unphrased = [RubricItem("A", "指出借款合同合法有效", 4)]
    assert run(judge_rubric(door, PROXY, response="借款合同合法有效。", items=unphrased)).value == pytest.approx(
        round(4 * 7 / 9, 2) / 4
    )
    assert run(judge_rubric(door, PROXY, response="", items=unphrased)).value == 0.0


def test_a_calls_key_depends_on_the_kind_that_answers_it_not_on_the_kinds_registered_beside_it():
    # A stage registers only its benchmark's kinds, the estimate every benchmark's: the same call must get the
    # same key in both (the proxy's fingerprint once covered every registered kind, and the keys differed).
    from steps.judges import scripted as proxy
    from steps.llm.scripted import fingerprint_of

    model, meta = "scripted/judge", {"scenario": "any", "judge_kind": "pointwise"}
    before = fingerprint_of(model, meta)
    proxy.register_proxy("test-extra-kind", lambda request: "[[3]]")
    try:
        assert fingerprint_of(model, meta) == before
        assert fingerprint_of(model, {**meta, "judge_kind": "rubric"}) != before  # rubric_proxy.py enters its keys
    finally:
        del proxy.PROXIES["test-extra-kind"]

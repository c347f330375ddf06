"""KQ/LC scoring of a whole case, hand-computed: I-1 from the checks, I-2 by rule or judge, silence, skips."""

from __future__ import annotations

import pytest

from steps.j1.envs.common.profiles import TopicsTruth
from steps.j1.params import J1EvalParams
from steps.judges.result import JudgeFailure
from tests.j1.eval.conftest import PROXY, FixedPanel, check, evaluate, make_case, utterance

TRUTH = TopicsTruth.model_validate(
    {
        "theme": "民间借贷",
        "derivation": "test",
        "topics": [
            {"topic": "借款合同是否必须采用书面形式", "kind": "binary", "answer": "否"},
            {"topic": "借款到期不还能否起诉", "kind": "binary", "answer": "是"},
            {
                "topic": "过错责任的法律依据",
                "kind": "open_statute",
                "answer": "《民法典》第一千一百六十五条",
                "statutes": [{"law": "《中华人民共和国民法典》", "article": 1165}],
            },
            {"topic": "应当向哪个法院起诉", "kind": "open_phrase", "answer": "向被告住所地人民法院起诉"},
            {"topic": "利息能否超过法定上限", "kind": "binary", "answer": "否"},
        ],
    }
)
REPLY_4 = "您可以向被告住所地的人民法院起诉。"


def dialogue(*, last_agent: str | None = None) -> list[dict]:
    """Four exchanges, topics 1-4 in order; topic 5 is never raised."""
    turns = [
        utterance(1, "client", "借款合同是否必须采用书面形式？"),
        utterance(1, "agent", "不是必须的，口头约定也有效。"),
        check(1, 0, "否"),
        utterance(2, "client", "借款到期不还能否起诉？"),
        utterance(2, "agent", "这要视情况而定。"),
        check(2, 1, "视情况而定"),
        utterance(3, "client", "过错责任的法律依据是什么？"),
        utterance(3, "agent", "依据《民法典》第一千一百六十五条第一款，行为人因过错侵害他人权益应当承担侵权责任。"),
        check(3, 2, "民法典第1165条"),
        utterance(4, "client", "应当向哪个法院起诉？"),
        utterance(4, "agent", REPLY_4),
        check(4, 3, "被告住所地法院"),
    ]
    if last_agent is not None:
        turns += [utterance(5, "client", "还有别的问题。"), utterance(5, "agent", last_agent)]
    return turns


def test_binary_accuracy_and_open_topics_by_hand(panel):
    judge = panel({"I-2": 0.6})
    rows = evaluate(make_case("KQ", TRUTH, dialogue(), ended_by="topics_done"), judge)
    # I-1: topic 1 correct (1), topic 2 conditional (0.5), topic 5 never raised (skipped)
    assert rows[("I-1", "")].value == pytest.approx(0.75) and rows[("I-1", "")].status == "scored"
    assert [rows[("I-1", t)].value for t in ("T1", "T2", "T5")] == [1.0, 0.5, None]
    assert rows[("I-1", "T5")].status == "skipped"
    # I-2: the provision topic by rule (law and article cited: 1), the phrase topic by the judge (0.6)
    assert rows[("I-2", "T3")].value == 1.0 and rows[("I-2", "T3")].judge == "rule"
    assert rows[("I-2", "T4")].value == 0.6 and rows[("I-2", "T4")].judge == "test/judge"
    assert rows[("I-2", "")].value == pytest.approx(0.8) and rows[("I-2", "")].judge == "test/judge"
    asked = judge.asked["I-2"]
    assert (asked.question, asked.reference) == ("应当向哪个法院起诉", "向被告住所地人民法院起诉")
    assert asked.candidate == REPLY_4


def test_strict_topics_score_the_unraised_topic_zero(panel):
    rows = evaluate(
        make_case("KQ", TRUTH, dialogue(), ended_by="topics_done"),
        panel({"I-2": 0.6}),
        J1EvalParams(strict_topics=True),
    )
    assert rows[("I-1", "")].value == pytest.approx((1 + 0.5 + 0) / 3)


def test_a_failed_topic_judge_is_left_out_of_i2_and_counted(panel):
    rows = evaluate(make_case("LC", TRUTH, dialogue(), ended_by="topics_done"), panel({"I-2": JudgeFailure.UNPARSABLE}))
    topic = rows[("I-2", "T4")]
    assert (topic.value, topic.status, topic.failure) == (None, "judge_failed", "unparsable")
    head = rows[("I-2", "")]
    assert head.value == 1.0 and head.status == "scored" and head.evidence["judge_failed_parts"] == 1


def test_a_topic_raised_but_not_answered_scores_zero_without_a_judge(panel):
    turns = dialogue()
    turns[10] = utterance(4, "agent", "")  # raised, the agent said nothing in that exchange
    judge = panel({"I-2": 0.9})
    rows = evaluate(make_case("KQ", TRUTH, turns, ended_by="topics_done"), judge)
    assert rows[("I-2", "T4")].value == 0.0 and "I-2" not in judge.asked


def test_an_agent_that_falls_silent_scores_zero_on_the_topics_it_left(panel):
    rows = evaluate(make_case("KQ", TRUTH, dialogue(last_agent=""), ended_by="empty_reply"), panel({"I-2": 0.6}))
    t5 = rows[("I-1", "T5")]
    assert (t5.value, t5.status) == (0.0, "failed_task")
    assert rows[("I-1", "")].value == pytest.approx((1 + 0.5 + 0) / 3)


def test_a_silent_client_or_a_failed_call_is_excluded_and_counted(panel):
    silent_client = [*dialogue(), utterance(5, "client", "")]
    for case in (
        make_case("KQ", TRUTH, silent_client, ended_by="empty_reply"),
        make_case("KQ", TRUTH, dialogue(), ended_by="call_failed", failure="server_error: 503"),
    ):
        rows = evaluate(case, panel())
        assert set(rows) == {("I-1", ""), ("I-2", "")}
        assert all(r.status == "dialogue_failed" and r.value is None and r.failure for r in rows.values())
    scored = evaluate(
        make_case("KQ", TRUTH, dialogue(), ended_by="call_failed", failure="x"),
        panel(),
        J1EvalParams(call_failed="score"),
    )
    assert scored[("I-1", "")].value == pytest.approx(0.75)


def test_an_instance_without_binary_topics_skips_i1():
    truth = TopicsTruth.model_validate({"theme": "t", "derivation": "d", "topics": [TRUTH.topics[3].model_dump()]})
    turns = [utterance(1, "client", "应当向哪个法院起诉？"), utterance(1, "agent", REPLY_4), check(1, 0, "…")]
    rows = evaluate(make_case("KQ", truth, turns, ended_by="topics_done"), FixedPanel(None, PROXY, values={"I-2": 1.0}))
    assert rows[("I-1", "")].status == "skipped" and rows[("I-1", "")].value is None
    assert rows[("I-2", "")].value == 1.0

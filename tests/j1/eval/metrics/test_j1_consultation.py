"""I-1 binary accuracy and the statute half of I-2, hand-computed."""

from __future__ import annotations

import pytest

from steps.j1.eval.metrics import TopicCheck, binary_accuracy, non_binary_score, statute_topic_score, topic_text
from steps.j1.eval.metrics.consultation import polarity

TOPICS = [
    {"topic": "定金能否退还", "kind": "binary", "answer": "是"},
    {"topic": "是否需要书面合同", "kind": "binary", "answer": "否"},
    {"topic": "能否主张违约金", "kind": "binary", "answer": "是"},
    {"topic": "诉讼时效是否中断", "kind": "binary", "answer": "否"},
    {"topic": "如何起诉", "kind": "open_phrase", "answer": "向被告住所地法院起诉"},
    {"topic": "能否撤诉", "kind": "binary", "answer": "是"},
]


@pytest.mark.parametrize(
    ("summary", "expected"),
    [
        ("是", "是"),
        ("是的。", "是"),
        ("否", "否"),
        ("不是", "否"),
        ("视情况而定", "conditional"),
        ("不一定", "conditional"),
        ("无", None),
        ("", None),
        ("关于这个问题要看合同", None),
    ],
)
def test_polarity_of_summaries(summary, expected):
    assert polarity(summary) == expected


def test_first_definitive_answer_decides_conditional_is_half_unreached_is_skipped():
    checks = [
        TopicCheck(1, 0, "视情况而定"),  # conditional first, then a correct 是: the definitive one decides → 1
        TopicCheck(2, 0, "是"),
        TopicCheck(3, 1, "是"),  # first definitive is wrong → 0, the later correct 否 does not repair it
        TopicCheck(4, 1, "否"),
        TopicCheck(5, 2, "视情况而定"),  # only conditional → 0.5
        TopicCheck(6, None, "无"),
        TopicCheck(7, 5, "无"),  # raised, never answered → 0
        # topic 3 never raised → skipped
    ]
    result = binary_accuracy(TOPICS, checks)
    assert [t.score for t in result.topics] == [1.0, 0.0, 0.5, None, 0.0]
    assert result.value == pytest.approx((1 + 0 + 0.5 + 0) / 4)
    assert (result.n_binary, result.n_reached) == (5, 4)
    assert result.topics[0].decided_by == "是" and result.topics[4].decided_by is None


def test_strict_scores_unreached_topics_zero():
    checks = [TopicCheck(1, 0, "是")]
    assert binary_accuracy(TOPICS, checks).value == 1.0
    assert binary_accuracy(TOPICS, checks, strict=True).value == pytest.approx(1 / 5)


def test_instance_without_scored_binary_topic_is_left_out():
    assert binary_accuracy(TOPICS, []).value is None
    assert binary_accuracy([TOPICS[4]], [TopicCheck(1, 0, "向法院起诉")]).value is None


def test_checks_are_read_in_exchange_order_not_list_order():
    checks = [TopicCheck(5, 1, "是"), TopicCheck(2, 1, "否")]
    assert binary_accuracy(TOPICS, checks).topics[1].score == 1.0


def test_statute_topic_needs_every_law_and_article():
    truth = [("《中华人民共和国民法典》", 1165), ("《中华人民共和国民法典》", 1173)]
    both = "依据《民法典》第一千一百六十五条第一款和第1173条，行为人应当承担侵权责任。"
    assert statute_topic_score(both, truth) == 1.0
    assert statute_topic_score("依据《中华人民共和国民法典》第一千一百六十五条。", truth) == 0.0
    assert statute_topic_score("依据《民法典》第一千一百六十五条。", truth[:1]) == 1.0
    assert statute_topic_score("依据《侵权责任法》第一千一百六十五条。", truth[:1]) == 0.0  # right article, wrong law
    assert statute_topic_score("第一千一百六十五条规定了过错责任。", truth[:1]) == 0.0  # article without a law
    with pytest.raises(ValueError):
        statute_topic_score("…", [])


def test_topic_text_joins_the_replies_of_the_topic_exchanges():
    checks = [TopicCheck(3, 4, "答"), TopicCheck(1, 4, "答"), TopicCheck(2, 0, "是")]
    replies = {1: "先准备起诉状。", 2: "可以退还。", 3: "向被告住所地法院起诉。"}
    assert topic_text(checks, replies, 4) == "先准备起诉状。\n向被告住所地法院起诉。"


def test_non_binary_mean_leaves_failed_topics_out_and_counts_them():
    assert non_binary_score([1.0, 0.4, None]) == (pytest.approx(0.7), 1)
    assert non_binary_score([None]) == (None, 1)

"""Hand-computed cases for rc-F1 (2-5), entity soft F1 (2-6) and positional trigger F1 (2-10)."""

from __future__ import annotations

import pytest

from steps.lawbench.metrics import ner, rcf1


def test_rc_tokens_keep_only_letters_and_digits_after_lower_casing():
    assert rcf1.rc_tokens("21万元,律师费4000元！") == list("21万元律师费4000元")
    assert rcf1.rc_tokens("ABC def") == list("abcdef")
    assert rcf1.rc_tokens("") == []


def test_rc_f1_hand_values():
    # gold 2,1,万,元 / prediction 2,1,万: P = 1, R = 3/4.
    assert rcf1.rc_f1("21万元", "21万") == pytest.approx(2 * 0.75 / 1.75)
    assert rcf1.rc_f1("。", "！") == 1.0  # both empty after filtering
    assert rcf1.rc_f1("", "abc") == 0.0
    assert rcf1.rc_f1("甲乙", "丙") == 0.0
    # Python's Unicode digits: full-width digits are kept and differ from ASCII ones.
    assert rcf1.rc_f1("１２", "12") == 0.0


def test_reading_comprehension_cleans_only_the_gold():
    result = rcf1.score_reading_comprehension(["回答:张三", "", "张三"], ["回答:张三"] * 3)
    # The model's own `回答` adds two tokens: P = 2/4, R = 1.
    assert result.item_scores == (pytest.approx(2 / 3), 0.0, 1.0)
    assert result.abstention_rate == 0.0


def test_entities_on_one_line_swallow_each_other():
    gold = "受害人:严某某、肖某某;被盗物品:查获手机;组织机构:公安机关"
    found = ner.predicted_entities(gold)
    assert found["受害人"] == "严某某、肖某某;被盗物品:查获手机;组织机构:公安机关"
    # rc-F1 per type: 受害人 6/22 precision -> 12/28; 被盗物品 4/12 -> 1/2; 组织机构 1. P = R = sum/3.
    per_type = 12 / 28 + 0.5 + 1.0
    p = r = per_type / 3
    assert ner.entity_soft_f1(ner.reference_entities(0, gold), found) == pytest.approx(2 * p * r / (p + r + 1e-10))


def test_entities_one_per_line_score_just_below_one():
    gold = "受害人:严某某、肖某某;被盗物品:查获手机"
    prediction = "受害人：严某某、肖某某\n被盗物品:查获手机 等\n"
    score = ner.entity_soft_f1(ner.reference_entities(0, gold), ner.predicted_entities(prediction))
    assert score == 2 * 1.0 * 1.0 / (2.0 + 1e-10)  # the official +1e-10 keeps a perfect item below 1


def test_entity_edge_rules():
    assert ner.predicted_entities("地点:某") == {}  # occurrence ends within the last two characters
    assert ner.predicted_entities("地点:无\n时间:未提及\n") == {}
    assert ner.predicted_entities("时间:昨天 下午\n时间:今天\n") == {"时间": "今天"}  # last one wins
    assert ner.entity_soft_f1({}, {}) == 1.0
    assert ner.entity_soft_f1({}, {"时间": "今天"}) == 0.0


def test_entity_extraction_reports_zero_abstention_like_results_csv():
    result = ner.score_entity_extraction(["", ""], ["", "时间:今天"])
    assert result.item_scores == (1.0, 0.0)
    assert result.abstention_rate == 0.0
    assert result.detail["uncounted_abstentions"] == 1


def test_trigger_words_are_paired_by_position():
    assert rcf1.positional_soft_f1("查扣;退给", "查扣;退给") == 2 / (2 + 1e-10)
    assert rcf1.positional_soft_f1("查扣;退给", "退给;查扣") == 0.0
    # One of two triggers: P = 1/1, R = 1/2.
    assert rcf1.positional_soft_f1("查扣;退给", "查扣") == pytest.approx(2 * 0.5 / 1.5)
    # A full-width separator makes one item: rc-F1(查扣, 查扣；退给) = 2/3, then P = 2/3, R = 1/3.
    assert rcf1.positional_soft_f1("查扣;退给", "查扣；退给") == pytest.approx(2 * (2 / 3) * (1 / 3) / 1.0)
    assert rcf1.score_trigger_words([""], ["查扣"]).score == 0.0

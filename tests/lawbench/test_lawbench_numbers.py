"""Hand-computed cases for prison terms (3-4/3-5) and damages (3-7)."""

from __future__ import annotations

import math

import pytest

from steps.lawbench.metrics import amounts, prison

LN216 = math.log(216)


@pytest.mark.parametrize(
    ("prediction", "months"),
    [
        ("有期徒刑一年六个月", 6),  # months win and nothing is summed
        ("拘役三个月", 3),
        ("十二个月", 12),
        ("两年", 24),  # cn2an 0.5.22 turns every 两 into 2
        ("半年", 60),  # ... and 半 into 0.5, so 0.5年 reads as 5 years
        ("有期徒刑1.5年", 60),
        ("判处有期徒刑6年，罚金2000元", 72),
        ("2016年3月", 3),
        ("死刑", None),
        ("无期徒刑", None),
        ("", None),
    ],
)
def test_predicted_months(prediction, months):
    assert prison.predicted_months(prediction) == months


def test_prison_score_log_distance_and_skips():
    refs = ["刑期:4个月", "刑期:6个月", "刑期:死刑", "刑期:12个月"]
    preds = ["九个月", "六个月", "无期徒刑", "不知道"]
    result = prison.score_prison_term_without_articles(preds, refs)
    distances = [abs(math.log(5) - math.log(10)), 0.0, LN216]  # the 死刑 row is skipped
    assert result.score == pytest.approx((LN216 - sum(distances) / 3) / LN216)
    assert result.abstention_rate == pytest.approx(1 / 4)  # denominator counts the skipped row
    assert result.item_scores[2] is None


def test_prison_score_is_not_clipped_below_zero():
    result = prison.score_prison_term_with_articles(["有期徒刑100000年"], ["刑期:0个月"])
    assert result.score < 0


def test_damages_any_extracted_number_may_match():
    refs = ["上文涉及到的犯罪金额:8500.0元。"] * 5
    preds = ["3000+5500=8500元", "8,500元", "八千五百元", "0.85万元", "共计8500.00元"]
    result = amounts.score_damages(preds, refs)
    assert result.item_scores == (1.0, 0.0, 0.0, 0.0, 1.0)
    assert result.abstained == (False, False, True, False, False)

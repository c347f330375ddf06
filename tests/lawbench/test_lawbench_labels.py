"""Hand-computed cases for the single-choice judge and the set-F1 label tasks (1-2, 2-2, 2-3, 2-4, 2-8, 2-9,
3-1, 3-3, 3-6)."""

from __future__ import annotations

import pytest

from steps.lawbench.metrics import choice, setf1
from steps.lawbench.metrics.articles import predicted_articles, score_article_prediction
from steps.lawbench.metrics.charges import charge_names, score_charge_prediction
from steps.lawbench.metrics.result import ScoringError


def test_single_choice_needs_exactly_the_gold_letter():
    assert choice.judge_single_choice("B", "ABCD", "B") == (1.0, False)
    # Any second option letter anywhere makes the answer wrong: no answer-span extraction.
    assert choice.judge_single_choice("[正确答案]B<eoa>，A项错误", "ABCD", "B") == (0.0, False)
    assert choice.judge_single_choice("Based on Article 5", "ABCD", "B") == (0.0, False)
    # Lower-case letters are not options: nothing found is an abstention.
    assert choice.judge_single_choice("答案是b", "ABCD", "B") == (0.0, True)
    assert choice.judge_single_choice("", "ABCD", "B") == (0.0, True)


def test_knowledge_qa_reads_the_letter_after_the_full_width_colon():
    result = choice.score_knowledge_qa(
        ["B", "C", "", "AB"], ["正确答案：B。", "正确答案：B。", "正确答案：A。", "正确答案：A。"]
    )
    assert result.score == pytest.approx(0.25)
    assert result.abstention_rate == pytest.approx(0.25)
    assert result.abstained == (False, False, True, False)


def test_case_analysis_uses_the_half_width_colon_and_rejects_other_formats():
    assert choice.score_case_analysis(["D"], ["正确答案:D。"]).score == 1.0
    with pytest.raises(ScoringError, match="item 0"):
        choice.score_case_analysis(["D"], ["正确答案：D。"])


def test_argument_mining_has_five_options():
    result = choice.score_argument_mining(["E", "E和A"], ["[正确答案]E<eoa>", "[正确答案]E<eoa>"])
    assert result.item_scores == (1.0, 0.0)


def test_dispute_focus_skips_compensation_rows_but_keeps_them_in_the_abstention_denominator():
    refs = ["争议焦点类别：赔偿。", "争议焦点类别：责任认定。", "争议焦点类别：利息。", "争议焦点类别：违约。"]
    preds = ["", "[争议焦点]责任认定<eoa>", "", "违约，合同解除"]
    result = choice.score_dispute_focus(preds, refs)
    assert result.item_scores == (None, 1.0, 0.0, 0.0)
    assert result.score == pytest.approx(1 / 3)  # 3 scored rows
    assert result.abstention_rate == pytest.approx(1 / 4)  # only row 2 abstains; the skipped row does not
    assert result.n_scored == 3


def test_issue_topic_gold_is_the_bare_label():
    result = choice.score_issue_topic(["[类别]劳动纠纷<eoa>", "侵权"], ["劳动纠纷", "人身损害"])
    assert result.item_scores == (1.0, 0.0)


def test_set_f1_hand_values():
    assert setf1.set_f1({"a", "b"}, {"a"}) == pytest.approx(2 / 3)
    assert setf1.set_f1({"a"}, ["a", "a"]) == 1.0
    assert setf1.set_f1({"a"}, set()) == 0
    assert setf1.set_f1({"a"}, {"b"}) == 0


def test_marital_disputes_multiple_labels_and_abstention():
    ref = "类别:婚后有子女、限制行为能力子女抚养。"
    result = setf1.score_marital_disputes(
        ["[类别]婚后有子女<eoa>", "婚后有子女、限制行为能力子女抚养", "无法判断"], [ref] * 3
    )
    assert result.item_scores == (pytest.approx(2 / 3), 1.0, 0.0)
    assert result.abstained == (False, False, True)


def test_event_detection_matches_whole_slash_labels():
    result = setf1.score_event_detection(["支付", "支付/给付；卖出", "卖出"], ["支付/给付;卖出"] * 3)
    # `支付` alone is not the option `支付/给付`; the full-width separator in the output does not matter.
    assert result.item_scores == (0.0, 1.0, pytest.approx(2 / 3))
    assert result.abstained == (True, False, False)


def test_charges_nested_names_all_count():
    assert len(charge_names()) == 189
    result = score_charge_prediction(
        ["[罪名]合同诈骗<eoa>", "盗窃;诈骗", ""], ["罪名:合同诈骗", "罪名:盗窃;诈骗", "罪名:盗窃"]
    )
    # 合同诈骗 also contains the option 诈骗: {合同诈骗, 诈骗} against {合同诈骗}.
    assert result.item_scores == (pytest.approx(2 / 3), 1.0, 0.0)
    assert result.abstention_rate == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    ("prediction", "expected"),
    [
        ("[法条]刑法第264条、刑法第266条<eoa>", {264, 266}),
        ("第二百六十四条、第二百六十六条", {264, 266}),
        ("根据2016年刑法第264条", {2016}),  # only the first number of a chunk counts
        ("刑法第264条第一款", set()),  # `第…款` deletion eats the article number
        ("盗窃罪", set()),
    ],
)
def test_article_numbers_follow_the_official_clean_up(prediction, expected):
    assert predicted_articles(prediction) == expected


def test_article_prediction_score_and_abstention():
    result = score_article_prediction(["刑法第264条", "无"], ["法条:刑法第264、266条", "法条:刑法第264条"])
    assert result.item_scores == (pytest.approx(2 / 3), 0.0)
    assert result.abstained == (False, True)

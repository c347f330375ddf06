"""III-3 crime accuracy, III-4 penalty deviation and III-6 law accuracy, hand-computed."""

from __future__ import annotations

import math

import pytest

from steps.j1.eval.metrics import (
    LawRef,
    Sentence,
    court_law_refs,
    crime_accuracy,
    law_accuracy,
    penalty_deviation,
)
from steps.j1.eval.metrics.penalty import log_distance
from steps.j1.extract.model import Statute


def judgment(rulings: str, reasoning: str = "本院认为，被告人的行为已构成犯罪。") -> str:
    basis = "依照《中华人民共和国刑法》第二百六十四条之规定，"
    return f"对被告人说：现在宣判。{reasoning}{basis}判决如下：{rulings}<结束庭审>"


def ratio(d: float) -> float:
    return d / (1 + d)


# ---------------------------------------------------------------- III-3


def test_single_charge_in_the_rulings():
    result = crime_accuracy(judgment("被告人张三犯盗窃罪，判处有期徒刑一年。"), ["盗窃罪"])
    assert (result.value, result.predicted, result.source) == (1.0, ("盗窃",), "rulings")


def test_every_charge_of_a_multi_charge_case_is_required():
    both = judgment("被告人张三犯盗窃罪，判处有期徒刑一年；犯诈骗罪，判处有期徒刑二年，决定执行有期徒刑二年六个月。")
    assert crime_accuracy(both, ["盗窃", "诈骗"]).value == 1.0
    one = crime_accuracy(judgment("被告人张三犯盗窃罪，判处有期徒刑一年。"), ["盗窃", "诈骗"])
    assert (one.value, one.matched_fraction) == (0.0, 0.5)


def test_charges_named_outside_the_rulings_when_the_rulings_name_none():
    text = judgment("判处被告人张三有期徒刑一年。", reasoning="本院认为，被告人张三的行为已构成盗窃罪，不构成诈骗罪。")
    result = crime_accuracy(text, ["盗窃"])
    assert (result.value, result.predicted, result.source) == (1.0, ("盗窃",), "judgment")


def test_a_wrong_charge_and_a_missing_judgment_score_zero():
    assert crime_accuracy(judgment("被告人张三犯抢夺罪，判处有期徒刑一年。"), ["抢劫"]).value == 0.0
    missing = crime_accuracy(None, ["盗窃"])
    assert (missing.value, missing.matched_fraction, missing.source) == (0.0, 0.0, "none")
    assert crime_accuracy(judgment("…"), []).value is None


# ---------------------------------------------------------------- III-4


def test_exact_sentence_deviates_zero():
    truth = Sentence("有期徒刑", 18, 5000)
    result = penalty_deviation(judgment("被告人张三犯盗窃罪，判处有期徒刑一年六个月，并处罚金人民币五千元。"), truth)
    assert (result.sen, result.fine, result.value, result.failed) == (0.0, 0.0, 0.0, False)


def test_log_distance_by_hand():
    truth = Sentence("有期徒刑", 12, 2000)
    result = penalty_deviation(judgment("被告人张三犯盗窃罪，判处有期徒刑二年，并处罚金人民币一千元。"), truth)
    sen, fine = ratio(abs(math.log(25) - math.log(13))), ratio(abs(math.log(1001) - math.log(2001)))
    assert result.sen == pytest.approx(sen) and result.fine == pytest.approx(fine)
    assert result.value == pytest.approx((sen + fine) / 2)
    clipped = penalty_deviation(
        judgment("被告人张三犯盗窃罪，判处有期徒刑二年，并处罚金人民币一千元。"), truth, normaliser="clip"
    )
    assert clipped.sen == pytest.approx(min(abs(math.log(25 / 13)), 1.0))
    assert log_distance(0, 0) == 0.0


def test_suspended_sentence_compares_the_principal_term_not_the_probation():
    truth = Sentence("有期徒刑", 12, None)
    result = penalty_deviation(judgment("被告人张三犯盗窃罪，判处有期徒刑一年，缓刑二年。"), truth)
    assert result.predicted.prison_months == 12 and result.sen == 0.0


def test_fine_in_wan_and_absent_fines():
    truth = Sentence("拘役", 3, 15000)
    assert (
        penalty_deviation(judgment("被告人张三犯危险驾驶罪，判处拘役三个月，并处罚金人民币1.5万元。"), truth).fine
        == 0.0
    )
    no_fine = Sentence("拘役", 3, None)
    both_absent = penalty_deviation(judgment("被告人张三犯危险驾驶罪，判处拘役三个月。"), no_fine)
    assert (both_absent.fine, both_absent.value) == (0.0, 0.0)
    predicted_absent = penalty_deviation(judgment("被告人张三犯危险驾驶罪，判处拘役三个月。"), truth)
    assert predicted_absent.fine == pytest.approx(ratio(math.log(15001)))


def test_life_sentence_is_excluded_from_sen_and_counted():
    truth = Sentence("无期徒刑", None, None)
    result = penalty_deviation(judgment("被告人张三犯故意杀人罪，判处无期徒刑，剥夺政治权利终身。"), truth)
    assert (result.sen, result.sen_excluded, result.fine, result.value) == (None, True, 0.0, 0.0)
    failed = penalty_deviation(None, truth)
    assert (failed.sen, failed.fine, failed.value, failed.sen_excluded) == (None, 1.0, 1.0, True)


def test_a_predicted_life_sentence_against_a_term_counts_as_the_longest_term():
    truth = Sentence("有期徒刑", 120, None)
    result = penalty_deviation(judgment("被告人张三犯故意伤害罪，判处无期徒刑。"), truth)
    assert result.sen == pytest.approx(ratio(abs(math.log(301) - math.log(121))))


def test_combined_term_of_several_charges_and_summed_fines():
    truth = Sentence("有期徒刑", 38, 2800)
    text = judgment(
        "被告人甲犯盗窃罪，判处有期徒刑八个月，并处罚金1800元；犯抢劫罪，判处有期徒刑三年，并处罚金1000元，"
        "决定执行有期徒刑三年零二个月。"
    )
    result = penalty_deviation(text, truth)
    assert (result.predicted.prison_months, result.predicted.fine_yuan, result.value) == (38, 2800, 0.0)


def test_one_sentence_for_several_charges_is_one_fine_not_one_per_charge():
    """犯A罪、B罪，判处…并处罚金X元 is one joint sentence: X yuan, not X per charge."""
    truth = Sentence("有期徒刑", 18, 20000)
    text = judgment("被告人魏某犯开设赌场罪、非法持有枪支罪，判处有期徒刑一年六个月，并处罚金人民币20000元。")
    result = penalty_deviation(text, truth, defendant="魏某")
    assert (result.predicted.prison_months, result.predicted.fine_yuan, result.value) == (18, 20000, 0.0)
    assert crime_accuracy(text, ["开设赌场", "非法持有枪支"], defendant="魏某").value == 1.0


def test_non_custodial_truth_is_zero_months():
    truth = Sentence("单处罚金", None, 5000)
    result = penalty_deviation(judgment("被告人张三犯盗窃罪，判处罚金人民币五千元。"), truth)
    assert (result.sen, result.fine) == (0.0, 0.0)
    wrong = penalty_deviation(judgment("被告人张三犯盗窃罪，判处有期徒刑六个月，并处罚金人民币五千元。"), truth)
    assert wrong.sen == pytest.approx(ratio(math.log(7)))


def test_failed_cases_score_the_maximum():
    truth = Sentence("有期徒刑", 12, 1000)
    for result in (penalty_deviation(None, truth), penalty_deviation(judgment("…"), truth, valid=False)):
        assert (result.sen, result.fine, result.value, result.failed) == (1.0, 1.0, 1.0, True)


def test_a_valid_judgment_without_any_sentence_reads_zero():
    truth = Sentence("有期徒刑", 12, 1000)
    result = penalty_deviation("本院认为，被告人有罪。判决如下：被告人张三有罪。", truth)
    assert result.sen == pytest.approx(ratio(math.log(13))) and not result.failed


# ---------------------------------------------------------------- III-6

CRIMINAL_LAW = "《中华人民共和国刑法》"


def refs(*pairs):
    return tuple(LawRef(*p) for p in pairs)


def test_recall_precision_and_f1_by_hand():
    truth = refs(("刑法", 264), ("刑法", 52), ("刑法", 67))
    text = "本院认为…依照《刑法》第二百六十四条、第五十二条第一款、第七十二条之规定，判决如下：…"
    result = law_accuracy(text, truth)
    assert result.matched == refs(("刑法", 264), ("刑法", 52))
    assert result.value == pytest.approx(2 / 3) and result.precision == pytest.approx(2 / 3)
    assert result.f1 == pytest.approx(2 / 3)


def test_sub_article_is_its_own_article_and_law_names_are_normalised():
    truth = refs(("刑法", 133, 1))
    assert law_accuracy("依照刑法第一百三十三条之一的规定", truth).value == 1.0
    assert law_accuracy("依照《中华人民共和国刑法》第一百三十三条的规定", truth).value == 0.0


def test_court_citations_of_the_parties_are_not_ground_truth():
    statutes = [
        Statute(CRIMINAL_LAW, 264, source="reasoning"),
        Statute(CRIMINAL_LAW, 264, paragraph=1, source="appendix"),
        Statute("《中华人民共和国民法典》", 1165, source="claims"),
        Statute(CRIMINAL_LAW, 133, sub_article=1, source="verdict"),
    ]
    assert court_law_refs(statutes) == refs(("刑法", 264), ("刑法", 133, 1))


def test_no_judgment_or_no_citation_scores_zero():
    truth = refs(("民法典", 675))
    assert law_accuracy(None, truth).value == 0.0
    nothing = law_accuracy("本院认为，被告应当还款。判决如下：…", truth)
    assert (nothing.value, nothing.precision, nothing.f1) == (0.0, 0.0, 0.0)
    assert law_accuracy("依照《民法典》第675条", ()).value is None

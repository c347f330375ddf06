"""Reading a judgment written by a model: its parts, its sentence, UNI, and the texts III-2/III-5 compare."""

from __future__ import annotations

import pytest

from steps.j1.eval.metrics import (
    candidate_reasoning,
    candidate_rulings,
    group_exchanges,
    reference_rulings,
    trial_validity,
)
from steps.j1.eval.metrics.judgment import without_lead
from steps.j1.eval.metrics.trial import Invalid
from steps.j1.extract.sections import judgment_parts, strip_appeal_notice
from steps.j1.extract.verdict import charges_named, read_sentence

CRIMINAL = """对被告人说：现在宣判。
【本院认为】
本院认为，被告人张三以非法占有为目的，秘密窃取他人财物，数额较大，其行为已构成盗窃罪。依照《中华人民共和国刑法》第二百六十四条、第五十二条之规定，判决如下：
一、被告人张三犯盗窃罪，判处有期徒刑一年，并处罚金人民币五千元。
如不服本判决，可在接到判决书的第二日起十日内提出上诉。
<结束庭审>"""

PAPER_STYLE = """[Court Reasoning] 本院认为，原告与被告之间的借贷关系合法有效。
[Court Judgment] 一、被告于本判决生效之日起十日内偿还原告借款10000元；二、驳回原告其他诉讼请求。
[Law] 《中华人民共和国民法典》第六百七十五条、第六百七十六条。<结束庭审>"""


def test_parts_of_a_court_style_judgment():
    parts = judgment_parts(CRIMINAL)
    assert parts.reasoning.startswith("本院认为，被告人张三") and parts.reasoning.endswith("之规定，")
    assert parts.rulings == "一、被告人张三犯盗窃罪，判处有期徒刑一年，并处罚金人民币五千元。"
    assert parts.laws == "依照《中华人民共和国刑法》第二百六十四条、第五十二条之规定"
    assert parts.complete


def test_parts_of_a_judgment_with_headings():
    parts = judgment_parts(PAPER_STYLE)
    assert parts.reasoning == "本院认为，原告与被告之间的借贷关系合法有效。"
    assert parts.rulings == "一、被告于本判决生效之日起十日内偿还原告借款10000元；二、驳回原告其他诉讼请求。"
    assert parts.laws == "《中华人民共和国民法典》第六百七十五条、第六百七十六条。"


def test_laws_heading_before_the_rulings():
    text = "本院认为，甲应当还款。\n法律依据：《民法典》第六百七十五条。\n判决如下：甲于十日内还款。"
    parts = judgment_parts(text)
    assert (parts.reasoning, parts.laws, parts.rulings) == (
        "本院认为，甲应当还款。",
        "《民法典》第六百七十五条。",
        "甲于十日内还款。",
    )


def test_incomplete_judgments():
    assert not judgment_parts("本院认为：被告应当还款。").complete
    assert judgment_parts("判决如下：被告还款。").reasoning is None
    nothing = judgment_parts("好的，现在休庭。")
    assert (nothing.reasoning, nothing.rulings, nothing.laws, nothing.complete) == (None, None, None, False)


def test_strip_appeal_notice():
    assert strip_appeal_notice("驳回原告的诉讼请求。如不服本判决，可在十五日内上诉。") == "驳回原告的诉讼请求。"
    assert strip_appeal_notice("驳回上诉，维持原判。本判决为终审判决。") == "驳回上诉，维持原判。"


def test_sentence_without_the_court_lead_is_still_read():
    sentence, issues = read_sentence("判处被告人张三有期徒刑一年，缓刑一年六个月，并处罚金人民币五千元。", ["张三"])
    assert (sentence.penalty, sentence.prison_months, sentence.probation_months, sentence.fine_yuan) == (
        "有期徒刑",
        12,
        18,
        5000,
    )
    assert issues[-1].kind == "inferred"
    combined, _ = read_sentence(
        "被告人张三构成盗窃罪和诈骗罪，数罪并罚，决定执行有期徒刑三年，并处罚金人民币3万元。", []
    )
    assert (combined.charges, combined.prison_months, combined.fine_yuan) == (("盗窃", "诈骗"), 36, 30000)
    assert read_sentence("被告人张三认罪态度良好。", ["张三"])[0] is None


def test_sentence_picks_the_named_defendant():
    sentence, _ = read_sentence("一、被告人甲犯盗窃罪，判处拘役三个月。二、被告人乙犯盗窃罪，判处拘役五个月。", ["乙"])
    assert (sentence.name, sentence.prison_months) == ("乙", 5)


def test_charges_named():
    text = "被告人的行为构成盗窃罪，不构成诈骗罪，犯罪以后自动投案；犯掩饰、隐瞒犯罪所得罪"
    assert charges_named(text) == ("盗窃", "掩饰、隐瞒犯罪所得")


def test_reference_and_candidate_texts():
    rulings = ["被告于本判决生效之日起十日内偿还原告借款10000元", "2、驳回原告其他诉讼请求。如不服本判决，可上诉。"]
    assert (
        reference_rulings(rulings) == "一、被告于本判决生效之日起十日内偿还原告借款10000元\n二、驳回原告其他诉讼请求。"
    )
    assert reference_rulings([f"第{i}项" for i in range(1, 13)]).split("\n")[-1] == "十二、第12项"
    assert without_lead("本院认为，原告的请求成立。") == "原告的请求成立。"
    assert candidate_reasoning(PAPER_STYLE) == "原告与被告之间的借贷关系合法有效。"
    assert candidate_rulings(PAPER_STYLE).startswith("一、被告于本判决生效之日起")
    assert candidate_rulings("我认为原告胜诉。") == "我认为原告胜诉。"  # nothing to cut: the whole utterance


def rows(judge_turns, replies):
    out = []
    for i, (judge, reply) in enumerate(zip(judge_turns, replies, strict=True), 1):
        out.append((i, "审判长", judge))
        if reply:
            out.append((i, "被告人", reply))
    return group_exchanges(out)


def test_valid_trial():
    exchanges = rows(
        ["现在开庭。", "对被告人说：请陈述。", "对被告人说：是否认罪？", CRIMINAL], ["好。", "我偷了。", "认罪。", ""]
    )
    validity = trial_validity(exchanges, CRIMINAL)
    assert (validity.uni, validity.reason, validity.judgment_exchange) == (1, None, 4)


OPENING, STATEMENT = "现在开庭。", "对被告人说：请陈述。"


@pytest.mark.parametrize(
    ("judge_turns", "replies", "judgment", "reason"),
    [
        ([OPENING, STATEMENT, "休庭。", "继续。"], ["好。", "我偷了。", "", ""], None, Invalid.NO_JUDGMENT),
        (
            [OPENING, STATEMENT, "休庭。", "继续。"],
            ["好。", "我偷了。", "", ""],
            "本院认为，有罪。",
            Invalid.NO_JUDGMENT,
        ),
        (
            [f"审理完毕。{CRIMINAL}", "听清了吗？", "好。", "闭庭。"],
            ["", "听清了。", "", ""],
            CRIMINAL,
            Invalid.COLLAPSE,
        ),
        (
            ["现在开庭，宣读起诉书。", "本庭已了解。", "下面宣判。", CRIMINAL],
            ["", "", "", ""],
            CRIMINAL,
            Invalid.COLLAPSE,
        ),
        ([OPENING, STATEMENT, CRIMINAL], ["好。", "我偷了。", ""], CRIMINAL, Invalid.TOO_SHORT),
    ],
)
def test_invalid_trials(judge_turns, replies, judgment, reason):
    validity = trial_validity(rows(judge_turns, replies), judgment)
    assert (validity.uni, validity.reason) == (0, reason)

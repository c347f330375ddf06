"""II-1 format following (FOR = Seq × Label), section cutting and the II-2 combination, hand-computed."""

from __future__ import annotations

import pytest

from steps.j1.eval.metrics import COMPLAINT, DEFENCE, document_score, document_sections, format_following

COMPLAINT_DOC = """民事起诉状

原告：张三，男，1980年1月5日生，汉族，住湖南省长沙市岳麓区麓山路1号。
被告：长沙某某贸易有限公司，住所：湖南省长沙市天心区书院路8号，法定代表人：李四。
诉讼请求：
1. 判令被告支付货款10000元；
2. 本案诉讼费由被告承担。
事实和理由：
原告与被告签订买卖合同，原告依约交货，被告至今未付款。
证据和证据来源，证人姓名和住所：
1. 买卖合同一份；
2. 送货单三张。

此致
长沙市天心区人民法院

具状人：张三
2025年3月1日"""

DEFENCE_DOC = """**民事答辩状**

**答辩人**：李四，女，1975年4月16日生，汉族，住北京市朝阳区建国路88号。
对北京市朝阳区人民法院（2025）京0105民初123号张三诉李四民间借贷纠纷一案的起诉，答辩如下：
一、答辩人已归还借款5万元，原告主张的数额不实。
二、利息约定违法。
证据和证据来源，证人姓名和住所：
1. 银行转账记录。

此致
北京市朝阳区人民法院
答辩人：李四
2025年3月1日"""


def test_a_complaint_in_the_template_format_scores_one():
    score = format_following(COMPLAINT_DOC, COMPLAINT)
    assert (score.value, score.seq, score.label) == (1.0, 1, 1.0)
    assert score.order == ("plaintiff", "defendant", "claims", "facts", "evidence")


def test_copied_parentheticals_fail_label_but_not_seq():
    doc = COMPLAINT_DOC.replace("原告：", "原告（如果是自然人）：").replace("被告：", "被告（如果是法人）：")
    score = format_following(doc, COMPLAINT)
    assert (score.seq, score.label, score.value) == (1, 3 / 5, 3 / 5)
    assert score.exact == ("claims", "facts", "evidence")


def test_split_evidence_label_is_a_label_error():
    doc = COMPLAINT_DOC.replace("证据和证据来源，证人姓名和住所：", "证据和证据来源：").replace(
        "2. 送货单三张。", "2. 送货单三张。\n证人姓名和住所：无"
    )
    score = format_following(doc, COMPLAINT)
    assert (score.seq, score.label) == (1, 4 / 5)


def test_a_missing_label_costs_label_only():
    doc = COMPLAINT_DOC.replace("事实和理由：\n", "")
    score = format_following(doc, COMPLAINT)
    assert (score.seq, score.label, score.value) == (1, 4 / 5, pytest.approx(0.8))
    assert score.missing == ("facts",)


def test_labels_out_of_order_score_zero():
    lines = COMPLAINT_DOC.split("\n")
    claims = lines[4:7]  # 诉讼请求： and its two items, moved before the parties
    doc = "\n".join(lines[:2] + claims + lines[2:4] + lines[7:])
    score = format_following(doc, COMPLAINT)
    assert score.order[:3] == ("claims", "plaintiff", "defendant")
    assert (score.seq, score.label, score.value) == (0, 1.0, 0.0)


def test_markdown_emphasis_and_ascii_colons_are_not_format_errors():
    doc = COMPLAINT_DOC.replace("原告：", "**原告**:").replace("诉讼请求：", "## 诉讼请求：")
    assert format_following(doc, COMPLAINT).value == 1.0


def test_no_document_scores_zero():
    score = format_following(None, COMPLAINT)
    assert (score.value, score.missing) == (0.0, ("plaintiff", "defendant", "claims", "facts", "evidence"))
    assert set(document_sections("", COMPLAINT).values()) == {None}


def test_defence_format_three_labels():
    score = format_following(DEFENCE_DOC, DEFENCE)
    assert (score.value, score.order) == (1.0, ("respondent", "reference", "evidence"))


def test_defence_reference_sentence_copied_from_the_template_fails():
    doc = DEFENCE_DOC.replace(
        "对北京市朝阳区人民法院（2025）京0105民初123号张三诉李四民间借贷纠纷一案的起诉",
        "对XXXX人民法院（XXXX）...民初...号...（写明当事人和案由）一案的起诉",
    )
    score = format_following(doc, DEFENCE)
    assert (score.seq, score.exact) == (1, ("respondent", "evidence"))
    assert score.value == pytest.approx(2 / 3)


def test_a_decorated_heading_is_not_rescued_by_the_signature():
    doc = DEFENCE_DOC.replace("**答辩人**：", "答辩人（自然人）：")  # the signature still reads 答辩人：李四
    assert format_following(doc, DEFENCE).exact == ("reference", "evidence")


def test_complaint_sections():
    sections = document_sections(COMPLAINT_DOC, COMPLAINT)
    assert sections["plaintiff"] == "张三，男，1980年1月5日生，汉族，住湖南省长沙市岳麓区麓山路1号。"
    assert sections["defendant"].startswith("长沙某某贸易有限公司")
    assert sections["claims"] == "1. 判令被告支付货款10000元；\n2. 本案诉讼费由被告承担。"
    assert sections["evidence"] == "1. 买卖合同一份；\n2. 送货单三张。"  # the closing 此致… is cut off
    assert "arguments" not in sections


def test_defence_sections_include_the_unlabelled_arguments():
    sections = document_sections(DEFENCE_DOC, DEFENCE)
    assert sections["respondent"].startswith("李四，女，1975年4月16日生")
    assert sections["arguments"] == "一、答辩人已归还借款5万元，原告主张的数额不实。\n二、利息约定违法。"
    assert sections["evidence"] == "1. 银行转账记录。"


@pytest.mark.parametrize("placeholder", ["……", "（待补充）", "（此处留空待补充）", "   ", "..."])
def test_placeholder_sections_are_missing(placeholder):
    doc = COMPLAINT_DOC.replace("原告与被告签订买卖合同，原告依约交货，被告至今未付款。", placeholder)
    assert document_sections(doc, COMPLAINT)["facts"] is None


def test_document_score_is_the_plain_mean_and_unscored_when_a_component_failed():
    assert document_score({"PLA": 1.0, "DEF": 0.6, "CLA": 0.8, "EVI": 0.5, "F&R": 0.6}) == pytest.approx(0.7)
    assert document_score({"RES": 1.0, "DEF": None, "EVI": 0.5}) is None
    assert COMPLAINT.components == ("PLA", "DEF", "CLA", "EVI", "F&R")
    assert DEFENCE.components == ("RES", "DEF", "EVI")

"""Cutting complaints into header and sections: all 693 ground truths, and hand-made model outputs."""

from __future__ import annotations

import re

from steps.mile.sections import header, split_sections


def _flat(text: str) -> str:
    return re.sub(r"\s+", "", text.replace("事实与理由", "事实和理由"))


def test_every_ground_truth_complaint_yields_its_facts_and_evidence(mile):
    """The released split leaves all three sections empty for all 693; ours recovers each one in full."""
    empty_facts, empty_evidence = [], []
    for row in mile.itertuples():
        s = split_sections(row.output)
        facts = re.sub(r"^\s*事实(和|与)理由[：:]", "", row.case_r_f)
        assert _flat(s.facts) == _flat(facts), row.id
        assert _flat(s.evidence) == _flat("".join(f"{i}. {e}" for i, e in enumerate(row.evidence, 1))), row.id
        assert _flat(s.claims) == "1.非诉讼费用内容。2.诉讼费用内容。", row.id
        empty_facts += [row.id] if not s.facts else []
        empty_evidence += [row.id] if not s.evidence else []
    assert empty_facts == []
    # the only empty evidence sections are the two instances whose source lists no evidence at all
    assert empty_evidence == [143, 306]
    assert sorted(mile[mile.evidence.map(len) == 0].id) == [143, 306]


def test_the_eleven_doubled_facts_labels_keep_their_body(mile):
    doubled = mile[mile.case_r_f.str.startswith("事实和理由")]
    assert len(doubled) == 11
    for row in doubled.itertuples():
        assert split_sections(row.output).facts.startswith(row.case_r_f.removeprefix("事实和理由：")[:10])


def test_the_header_holds_the_parties_and_nothing_after_the_first_label(mile):
    row = mile[mile.id == 1].iloc[0]
    head = header(row.output)
    assert "李恩泉" in head and "被告二：孙一海" in head and "诉讼请求" not in head and "借条" not in head


MODEL_OUTPUT = """**民事起诉状**

原告：张三，男，1980年1月2日生，汉族，地址：西虹市。
被告：李四，女，1985年3月4日生，汉族，地址：西虹市。

## 一、诉讼请求：
1. 判令被告偿还借款10000元；
2. 本案诉讼费由被告承担。

**事实与理由**
2020年，被告向原告借款10000元，约定诉讼请求提出前还清。
诉讼请求所依据的事实如上，被告至今未还。

- 证据和证据来源、证人姓名和住所：1. 借条一张
2. 微信聊天记录

此致
西虹市人民法院
具状人：张三
2024年5月1日
"""


def test_labels_under_markdown_and_enumerators_start_sections():
    s = split_sections(MODEL_OUTPUT)
    assert s.claims == "1. 判令被告偿还借款10000元；\n2. 本案诉讼费由被告承担。"
    assert s.evidence == "1. 借条一张\n2. 微信聊天记录"


def test_a_label_word_inside_a_body_does_not_switch_sections():
    facts = split_sections(MODEL_OUTPUT).facts
    assert "约定诉讼请求提出前还清" in facts  # mid-line
    assert "诉讼请求所依据的事实如上" in facts  # opening a line, but running on into the sentence


def test_closing_lines_and_chatter_after_a_blank_line_are_not_evidence():
    chatty = (
        "起诉状\n事实和理由：借款未还。\n证据和证据来源，证人姓名和住所：\n1. 借条\n\n"
        "以上是为您起草的起诉状，如有需要请告诉我。"
    )
    assert split_sections(chatty).evidence == "1. 借条"
    assert split_sections(MODEL_OUTPUT).facts.endswith("被告至今未还。")


def test_missing_sections_are_empty_strings_and_colon_variants_are_labels():
    s = split_sections("起诉状\n原告：张三\n诉讼请求:\n还钱\n证据：借条")
    assert (s.claims, s.facts, s.evidence) == ("还钱", "", "借条")
    assert split_sections("") == split_sections("随便写点什么")

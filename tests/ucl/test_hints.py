"""Hint levels split into items, the key items a user waits for, and the pointwise score arithmetic."""

from __future__ import annotations

import pytest

from steps.ucl.hints import HintItem, hint_items, hint_score, key_items, split_level


def test_numbered_items_split_in_sequence_only():
    assert split_level("should", "1.向劳动监察部门投诉；2.申请劳动仲裁；3.向法院提起诉讼；4.搜集证据") == [
        "向劳动监察部门投诉",
        "申请劳动仲裁",
        "向法院提起诉讼",
        "搜集证据",
    ]
    # numbers inside an item never split it: an article number, a decimal, a range
    assert split_level("encouraged", "《刑法》第133条之一") == ["《刑法》第133条之一"]
    assert split_level("should", "1.合理分数区间为3.5-4分、2.刑期9-14个月") == ["合理分数区间为3.5-4分", "刑期9-14个月"]
    # a number glued to the previous item (no separator) still starts the next item
    assert split_level("should", "1.参考法律：《合同法》6.判决结果") == ["参考法律：《合同法》6.判决结果"]
    assert split_level("should", "5.参考法律：《合同法》6.判决结果") == ["5.参考法律：《合同法》6.判决结果"]
    assert split_level("should", "1.参考法律：《合同法》2.判决结果：偿还借款") == [
        "参考法律：《合同法》",
        "判决结果：偿还借款",
    ]


def test_unnumbered_lines_and_chinese_enumerations_are_one_item_each():
    assert split_level("answer", "罪名是：走私、贩卖、运输、制造毒品罪") == ["罪名是：走私、贩卖、运输、制造毒品罪"]
    assert split_level("answer", "原文为：第一款。\n第二款。") == ["原文为：第一款。\n第二款。"]
    assert split_level("should", "（一）以威逼手段强制他人违章作业的；\n（二）利用职权强制他人违章作业的；\n") == [
        "（一）以威逼手段强制他人违章作业的",
        "（二）利用职权强制他人违章作业的",
    ]
    assert split_level("must", None) == [] and split_level("must", "  ") == []


def test_items_get_level_ids_and_key_items_follow_the_priority():
    items = hint_items(
        {"answer": "能够继承", "should": "其他可能继承人", "encouraged": "《民法典》", "forbidden": "《继承法》"}
    )
    assert [(i.id, i.level) for i in items] == [
        ("A1", "answer"),
        ("S1", "should"),
        ("E1", "encouraged"),
        ("F1", "forbidden"),
    ]
    assert [i.id for i in key_items(items)] == ["A1"]
    assert [i.id for i in key_items(hint_items({"should": "1.甲；2.乙", "encouraged": "丙"}))] == ["S1", "S2"]
    assert key_items(hint_items({"forbidden": "《婚姻法》"})) == []


def test_real_items_parse_as_the_spec_counts(ucl_items):
    """Every public item parses; 6-2 has no guidance; forbidden items occur only in Real Case Consulting."""
    from steps.ucl.hints import levels_of

    parsed = {row["item_id"]: hint_items(levels_of(row)) for row in ucl_items.to_dict("records")}
    empty = sorted({k.rsplit("/", 1)[0] for k, v in parsed.items() if not v})
    assert empty == ["Cross-Examination Strategy Generation"]
    forbidden = {k.rsplit("/", 1)[0] for k, v in parsed.items() if any(i.level == "forbidden" for i in v)}
    assert forbidden == {"Real Case Consulting"}
    assert sum(any(i.level == "forbidden" for i in v) for v in parsed.values()) == 6
    assert all(i.text.strip() == i.text and i.text for v in parsed.values() for i in v)
    judgment = parsed["Judgment Document Generation/1"]
    assert [i.id for i in judgment] == ["M1", *(f"S{k}" for k in range(1, 8)), "E1", "E2"]
    assert judgment[6].text == "以非法占有为目的，采用虚构事实、隐瞒真相的方法"
    assert judgment[-1].text == "罚金人民币八千元"


def test_hint_score_weights_levels_and_penalises_forbidden_mentions():
    items = [
        HintItem("A1", "answer", "a"),
        HintItem("S1", "should", "s1"),
        HintItem("S2", "should", "s2"),
        HintItem("E1", "encouraged", "e"),
        HintItem("F1", "forbidden", "f"),
    ]
    status = {"A1": 1.0, "S1": 0.5, "S2": 0.0, "E1": 1.0}
    # (4·1 + 2·0.25 + 1·1) / (4 + 2 + 1) = 5.5 / 7
    assert hint_score(status, items, {"F1": False}) == pytest.approx(5.5 / 7)
    assert hint_score(status, items, {"F1": True}) == pytest.approx(5.5 / 7 - 0.1)
    assert hint_score({"A1": 0.0, "S1": 0, "S2": 0, "E1": 0}, items, {"F1": True}) == 0.0  # clipped at 0
    assert hint_score({}, [HintItem("F1", "forbidden", "f")], {"F1": True}) is None  # nothing to score
    assert hint_score({}, [], {}) is None

"""Rubric parsing on hand-picked tricky items of the public release and on crafted snippets: nested points,
deductions, 不及格, alternative statutes, no-deduction notes, and totals that disagree with the items (the data
wins and the disagreement is reported)."""

from __future__ import annotations

import pytest

from steps.plawbench.case_rubric import dimension_of, marks_lead_lines, parse_case_analysis
from steps.plawbench.consultation_rubric import parse_consultation
from steps.plawbench.drafting_rubric import parse_drafting
from steps.plawbench.marks import deduction_clauses, find_marks
from steps.plawbench.sequence import seq_class
from tests.plawbench.conftest import issues_of, rows_of

# ---------------------------------------------------------------- the public release


def test_counts_and_maxima_come_from_the_data(tables):
    tasks = tables.tasks.set_index("item_id")
    assert tables.tasks.category.value_counts().to_dict() == {"case_analysis": 250, "consultation": 18, "drafting": 12}
    sections = tables.items[(tables.items.category == "case_analysis") & (tables.items.kind == "section")]
    assert sections.groupby("dimension").points.sum().to_dict() == {
        "conclusion": 1965,
        "facts": 4975,
        "reasoning": 7960,
        "statute": 3690,
    }  # spec §7
    plc = [tasks.at[f"plc/{i}", "max_points"] for i in range(1, 19)]
    assert plc == [16, 18, 15, 15, 13, 21, 17, 18, 18, 16, 17, 33, 30, 24, 20, 14, 13, 18]  # item sums (spec §7)
    assert int(tables.items[tables.items.category == "consultation"].shape[0]) == 166
    assert [tasks.at[f"plaintiff/{i}", "max_points"] for i in range(1, 7)] == [100, 80, 100, 95, 100, 100]
    assert [tasks.at[f"defendant/{i}", "max_points"] for i in range(1, 7)] == [80, 90, 55, 60, 95, 100]


def test_plc_total_line_disagreeing_with_the_items_is_reported_and_the_items_win(tables):
    assert tables.tasks.set_index("item_id").at["plc/17", "max_points"] == 13
    issue = issues_of(tables, "plc/17").set_index("issue").loc["total_mismatch"]
    assert "12" in issue.detail and "13" in issue.detail and "the data wins" in issue.effect
    assert set(issues_of(tables, "plc/13").issue) == {"no_total_line"}  # ids 12-16 have no 总分 line


def test_plc_repeated_item_numbers_are_renumbered_by_position(tables):
    rows = rows_of(tables, "plc/12")
    assert list(rows.index) == [f"Q{i}" for i in range(1, 13)]
    assert rows.loc["Q11", "text"].startswith("您能否提供支付13万元时") and rows.loc["Q11", "points"] == 3
    dup = issues_of(tables, "plc/12").query("issue == 'duplicate_number'")
    assert list(dup.issue) == ["duplicate_number", "duplicate_number"] and list(dup.rubric_id) == ["Q11", "Q12"]


def test_ldg_parts_adding_up_to_less_than_the_score_are_reported_and_the_score_wins(tables):
    assert tables.tasks.set_index("item_id").at["plaintiff/5", "max_points"] == 100
    issue = issues_of(tables, "plaintiff/5").set_index("issue").loc["sum_short"]
    assert "95" in issue.detail and "100" in issue.detail


def test_pca_items_above_the_dimension_points_are_reported_and_clamped(tables):
    rows = rows_of(tables, "pca/27")  # two （+5分） conclusion items, points 5
    assert rows.loc["C", "points"] == 5 and rows.loc[["C1", "C2"], "points"].tolist() == [5, 5]
    issue = issues_of(tables, "pca/27").set_index("rubric_id").loc["C"]
    assert issue.issue == "sum_exceeds" and "clamped to 5" in issue.effect


def test_pca_nested_points_are_sub_rows_of_the_judged_step(tables):
    rows = rows_of(tables, "pca/14")
    assert rows.loc["R2", "judged"] and rows.loc["R2", "points"] == 10
    assert rows.loc[["R2.1", "R2.2"], "points"].tolist() == [2.5, 5.0]
    assert not rows.loc["R2.1", "judged"] and rows.loc["R2.1", "parent_id"] == "R2"
    assert rows.loc[[f"R3.{k}" for k in range(1, 5)], "points"].sum() == 10
    assert "(+2.5分)提及老李所在村庄未划分声环境功能区" in rows.loc["R3", "text"]  # the judge reads the sub-points
    nested = issues_of(tables, "pca/14").set_index("rubric_id").loc["R2"]
    assert nested.issue == "nested_sum" and "7.5 of 10" in nested.detail
    assert "R3" not in set(issues_of(tables, "pca/14").rubric_id)


def test_pca_inline_deductions_become_rows_of_their_item(tables):
    rows = rows_of(tables, "pca/27")
    assert rows.loc["C1-d1", ["kind", "points", "parent_id"]].tolist() == ["deduction", 5.0, "C1"]
    assert rows.loc["C1-d1", "text"] == "若回答不承担连带责任，扣5分"
    assert rows.loc["F2-d1", "text"] == "未说明“未取得书面同意”扣3分"
    assert "扣3分" not in rows.loc["F2", "award_text"]  # the oracle's wording has no deduction notes
    repeat = rows_of(tables, "pca/3")
    each = repeat[(repeat.kind == "deduction") & repeat.text.str.contains("每少提及一个因素")]
    assert len(each) == 1 and each.points.iloc[0] == 2 and each.max_times.isna().all()


def test_pca_no_deduction_notes_and_alternative_statutes(tables):
    rows = rows_of(tables, "pca/0")
    assert rows.loc["R2-o2", ["kind", "text"]].tolist() == ["optional", "未分析不扣分"]
    assert rows.loc["S3-a1", ["kind", "parent_id"]].tolist() == ["alternative", "S3"]
    assert rows.loc["S3-a1", "text"] == "可替代法条：《中华人民共和国民法典》第1183条"
    assert "第1183条" in rows.loc["S3", "text"]  # the judge sees the alternative in the item
    assert rows.loc["S", "points"] == 15 and rows.loc[["S1", "S2", "S3", "S4"], "points"].sum() == 20


def test_ldg_fail_conditions_extra_penalties_and_uniform_deductions(tables):
    d1 = rows_of(tables, "defendant/1")
    assert d1.loc["1.2-f1", ["kind", "points", "parent_id", "judged"]].tolist() == ["fail", 10.0, "1.2", True]
    assert d1.loc["1.1-f1", "points"] == 0 and d1.loc["1.1-d3", "points"] == 3
    assert d1.loc["1.1-e1", ["kind", "points", "judged"]].tolist() == ["award", 6.0, False]
    uniform = d1[d1.parent_id.isna() & (d1.kind == "deduction")]
    assert uniform.points.tolist() == [10, 10, 10] and uniform.judged.all()
    assert uniform.max_times.isna().tolist() == [True, False, False]  # 每出现一项 has no bound
    assert uniform.max_times.iloc[2] == 3  # 3 document standards
    p5 = rows_of(tables, "plaintiff/5")
    assert p5.loc["2.1-f1", "parent_id"] == "P2" and "本大题" in p5.loc["2.1-f1", "text"]
    assert p5.loc["2.1-f2", "parent_id"] == "2.1"
    assert p5.loc["1.3-d1", "text"].startswith("仅列明第三人名称及基本信息")  # `A；或B，扣N分` stays one row
    p4 = rows_of(tables, "plaintiff/4")
    assert p4.loc["P1", "kind"] == "award" and (p4[p4.parent_id == "P1"].kind == "fail").any()  # 不合格


def test_ldg_nested_sub_items_are_groups(tables):
    p6 = rows_of(tables, "plaintiff/6")
    assert p6.loc["1.1", "kind"] == "section" and p6.loc["1.1.1", ["parent_id", "judged"]].tolist() == ["1.1", True]
    issue = issues_of(tables, "plaintiff/6").set_index("rubric_id").loc["3.1"]
    assert issue.issue == "sum_exceeds" and "28 of 20" in issue.detail


def test_issue_counts_are_pinned(tables):
    counts = tables.issues.groupby(["category", "issue"]).size().to_dict()
    assert counts == {
        ("case_analysis", "extra_marker"): 1,
        ("case_analysis", "nested_sum"): 4,
        ("case_analysis", "no_markers"): 13,
        ("case_analysis", "sum_exceeds"): 20,
        ("case_analysis", "sum_short"): 11,
        ("consultation", "duplicate_number"): 2,
        ("consultation", "no_total_line"): 5,
        ("consultation", "total_mismatch"): 1,
        ("drafting", "elements_sum"): 2,
        ("drafting", "sum_exceeds"): 2,
        ("drafting", "sum_short"): 2,
    }


# ---------------------------------------------------------------- crafted snippets


@pytest.mark.parametrize(
    ("text", "points"),
    [
        ("（+5分）某甲有权主张", [5]),
        ("(+5) 某甲有权主张", [5]),
        ("+10分 第一步", [10]),
        ("3、分析张三的主观状态（10分）", [10]),
        ("(1)(+2.5分)提及检测结果", [2.5]),
        ("（+5 分）甲。（+5 分）乙", [5, 5]),
        ("（回答均需要承担侵权责任直接+10分）", []),  # either/or credit inside an item
        ("三、推理过程得分（共 30 分，每个推理点 + 10 分）", []),
        ("未提及扣（2分）", []),
        ("总犯罪数额为180万元 + 50万元", []),
    ],
)
def test_point_markers(text, points):
    assert [m.points for m in find_marks(text)] == points


def test_deduction_clauses_split_per_amount_and_keep_their_wording():
    got = deduction_clauses("（未提及拍摄时间各扣 2 分，未提及 “告知甲” 扣 1 分，直至扣完 5 分）")
    assert [(d.text, d.points, d.max_times) for d in got] == [
        ("未提及拍摄时间各扣 2 分", 2.0, None),
        ("未提及 “告知甲” 扣 1 分", 1.0, 1),
    ]
    assert deduction_clauses("扣完5分为止；未分析不扣分") == []


def test_a_block_total_line_that_disagrees_is_reported_and_points_win():
    parsed = parse_case_analysis(
        "pca/x",
        [
            {"tag": "结论得分", "criterion": "【结论】（10分）\n（+5分）甲应承担责任", "points": "5"},
            {"tag": "案件事实", "criterion": "（+5分）甲乙签订合同\n（+5分）乙未付款", "points": "10"},
        ],
    )
    issues = {(i.rubric_id, i.issue) for i in parsed.issues}
    assert ("C", "total_mismatch") in issues and parsed.max_points == 15
    assert [r.dimension for r in parsed.rows if r.kind == "section"] == ["conclusion", "facts"]  # synonym tag


def test_a_block_without_markers_is_one_item_and_reported():
    parsed = parse_case_analysis(
        "pca/x", [{"tag": "结论得分", "criterion": "【结论】\n张三不构成犯罪。", "points": "5"}]
    )
    unit = next(r for r in parsed.rows if r.judged)
    assert (unit.rubric_id, unit.points, unit.text) == ("C1", 5.0, "【结论】\n张三不构成犯罪。")
    assert [i.issue for i in parsed.issues] == ["no_markers"]


def test_markers_at_the_end_of_the_line_before_their_item_are_moved():
    text = "【案情简述得分】10分 （+5分）\n关键事实1：甲借款。 （+5分）\n关键事实2：乙未还。"
    assert marks_lead_lines(text).splitlines() == [
        "【案情简述得分】10分",
        "（+5分）关键事实1：甲借款。",
        "（+5分）关键事实2：乙未还。",
    ]
    parsed = parse_case_analysis("pca/x", [{"tag": "案情简述得分", "criterion": text, "points": "10"}])
    assert [r.text for r in parsed.rows if r.judged] == ["关键事实1：甲借款", "关键事实2：乙未还"]
    assert parsed.issues == []


def test_unknown_dimension_tag_is_reported_not_guessed():
    assert dimension_of("法条依据得分") == "statute" and dimension_of("案情简介") == "facts"
    parsed = parse_case_analysis("pca/x", [{"tag": "量刑得分", "criterion": "（+5分）三年", "points": "5"}])
    assert [i.issue for i in parsed.issues] == ["unknown_tag"]


def test_consultation_lines_that_are_not_items_are_listed():
    parsed = parse_consultation("plc/x", "总分：5分\n1.(+3 分) 甲？\n随便写的一行\n2.（+2分）乙？")
    assert [r.points for r in parsed.rows] == [3, 2] and parsed.max_points == 5
    assert [i.issue for i in parsed.issues] == ["unparsed_line"]


def test_drafting_tiers_caps_and_penalty_labels():
    rubric = "\n".join(
        [
            "总分：20分",
            "一、证据清单（10分）",
            "完全充分（10 分）：列明借条（证明借款）。",
            "部分充分（5 分）：只列明借条。",
            "二、诉讼请求（10分）",
            "2.1 本金（10分）",
            "得分点：主张本金10万元（6分）；主张利息（4分）。",
            "扣分点：",
            "笼统表述，本项最高得4分。",
            "三、统一扣分项",
            "说明：可累计扣分。",
            "法条准确：",
            "引用的法条需真实有效。每出现一项错误，扣 10 分。",
        ]
    )
    parsed = parse_drafting("plaintiff/x", rubric, 20)
    rows = {r.rubric_id: r for r in parsed.rows}
    assert rows["P1"].kind == "award" and rows["P1"].judged and rows["P1-l1"].kind == "level"
    assert rows["2.1-d1"].points == 6  # 最高得4分 of 10
    assert rows["U1"].text.startswith("法条准确：引用的法条") and rows["U1"].max_times is None
    assert parsed.issues == []


def test_order_requirement_classes():
    assert seq_class("按照第一步、第二步顺序推理才可得分，不按顺序不得分") == "sequential"
    assert seq_class("第一步和第二步顺序可以互换，第三步顺序错误不得分，按照以下顺序推理") == "partial"
    assert seq_class("（无需按照顺序推理）第一步 …") == "nonsequential"
    assert seq_class("（+10分）第一步：分析合同效力") == "unspecified_steps"
    assert seq_class("无论证顺序要求。按以下步骤顺序推理方可得分") == "contradictory"

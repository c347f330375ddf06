from steps.j1.extract import IssueKind, parse_criminal
from steps.j1.extract.model import Procedure
from steps.j1.extract.text_checks import MAX_CHARS

from .texts import APPEAL, FIRST_INSTANCE, TRANSFER_RULING


def kinds(case):
    return {(i.field, i.kind) for i in case.issues}


def test_first_instance_with_two_defendants():
    case = parse_criminal(FIRST_INSTANCE, source_id="x")
    assert case.header.case_number == "（2017）沪0120刑初684号"
    assert [p.role for p in case.parties] == ["公诉机关", "被告人", "辩护人", "被告人"]
    s = case.sections
    assert s.record.startswith("上海市某区人民检察院以")
    assert s.indictment.startswith("公诉机关指控")
    assert s.defence.startswith("被告人张甲辩称")
    assert s.facts.startswith("经审理查明")
    assert s.evidence.startswith("上述事实")
    assert s.reasoning.startswith("本院认为") and s.reasoning.endswith("判决如下：")
    assert s.verdict.startswith("一、被告人张甲")
    assert s.appeal_notice.startswith("如不服本判决")
    assert s.signature.startswith("审判长") and s.appendix.startswith("附：")
    d1, d2 = case.defendants
    assert (d1.name, d1.charges, d1.prison_months, d1.probation_months, d1.fine_yuan) == (
        "张甲",
        ("盗窃",),
        18,
        None,
        20000,
    )
    assert (d2.name, d2.penalty, d2.prison_months, d2.probation_months, d2.fine_yuan) == ("王丙", "拘役", 3, 6, 15000)
    assert case.rulings == ["扣押在案的作案工具予以没收。"]
    cited = [(s.article, s.paragraph, s.source) for s in case.statutes]
    assert (264, None, "reasoning") in cited and (72, 3, "reasoning") in cited and (264, None, "appendix") in cited
    assert not [i for i in case.issues if i.field.startswith(("verdict", "sections", "header"))]


def test_appeal_takes_the_new_sentence_and_cites_the_original_judgment():
    case = parse_criminal(APPEAL)
    assert case.header.procedure is Procedure.APPEAL
    assert case.parties[0].role == "原公诉机关"
    assert case.sections.first_instance.startswith("原判认定")
    assert case.sections.appeal_grounds.startswith("上诉人董甲上诉称")
    (d,) = case.defendants
    assert (d.prison_months, d.probation_months, d.fine_yuan) == (2, 3, 3000)
    articles = {(s.article, s.sub_article, s.source) for s in case.statutes}
    assert (52, None, "first_instance") in articles and (133, 1, "reasoning") in articles


def test_missing_verdict_is_reported_not_guessed():
    text = FIRST_INSTANCE.split("判决如下")[0]
    case = parse_criminal(text)
    assert case.defendants == [] and case.sections.verdict is None
    assert ("verdict", IssueKind.MISSING) in kinds(case)


def test_jurisdiction_transfer_ruling_has_no_sentence():
    case = parse_criminal(TRANSFER_RULING)
    assert case.header.doc_type == "刑事裁定书"
    assert case.sections.verdict.startswith("本案移送")
    assert case.defendants == []
    assert ("verdict", IssueKind.MISSING) in kinds(case)
    assert any("赵甲" in i.detail for i in case.issues if i.field == "verdict")


def test_dismissed_appeal_reads_the_original_sentence():
    text = APPEAL.split("判决如下： ")[0].replace("判决如下", "") + "裁定如下： 驳回上诉，维持原判。 本裁定为终审裁定。"
    case = parse_criminal(text)
    (d,) = case.defendants
    assert (d.penalty, d.prison_months, d.fine_yuan) == ("拘役", 2, 3000)
    assert ("verdict", IssueKind.INFERRED) in kinds(case)


def test_garbled_text_is_flagged_and_still_parsed():
    case = parse_criminal(FIRST_INSTANCE.replace("经审理查明", "经审\ufffd\ufffd查明"))
    assert ("text", IssueKind.GARBLED) in kinds(case)
    assert len(case.defendants) == 2


def test_very_long_text_keeps_heading_and_verdict():
    middle = "经审理查明：" + "被告人张甲在某商场窃取财物。" * (MAX_CHARS // 10)
    text = FIRST_INSTANCE.replace("经审理查明：2017年4月，被告人张甲、王丙在某商场窃取财物价值人民币二万元。", middle)
    case = parse_criminal(text)
    assert ("text", IssueKind.TRUNCATED) in kinds(case)
    assert case.header.case_number and len(case.defendants) == 2


def test_empty_and_nonsense_input_never_crash():
    for text in ("", "   ", "这不是一份判决书。", None):
        case = parse_criminal(text)
        assert case.defendants == [] and case.issues

import pandas as pd

from steps.j1.extract.answers import validate_field
from steps.j1.extract.crosscheck import check_defendants, check_parties, check_statutes, crosscheck
from steps.j1.extract.inputs import civil_inputs, criminal_inputs

from .answers import answer
from .texts import CIVIL_ROW, FIRST_INSTANCE


def criminal_case():
    frame = pd.DataFrame([{"case_id": "judge/t1", "source_id": "t1", "full_text": FIRST_INSTANCE}])
    return criminal_inputs(frame)[0]


def civil_case():
    return civil_inputs(pd.DataFrame([{**CIVIL_ROW, "case_id": "c3rd/c-1"}]))[0]


def valid(kind: str, **changes) -> dict:
    a = answer(kind, **changes)
    return {k: validate_field(kind, k, v) for k, v in a.items()}


def test_an_answer_that_agrees_and_is_copied_raises_nothing():
    for case, kind in ((criminal_case(), "criminal"), (civil_case(), "civil")):
        kept, issues = crosscheck(case, valid(kind))
        assert issues == [], (kind, issues)
        assert kept["court_findings"] and kept["evidence"]


def test_a_different_fine_and_charge_are_disagreements_with_both_values():
    a = answer("criminal")["defendants"]
    a[0]["fine_yuan"] = 30000
    a[1]["charges"] = ["诈骗罪"]
    issues = check_defendants(criminal_case().parsed, validate_field("criminal", "defendants", a))
    got = {(i.field, i.subject): (i.kind, i.parser_value, i.llm_value) for i in issues}
    assert got == {
        ("verdict.fine_yuan", "张甲"): ("disagreement", 20000.0, 30000.0),
        ("verdict.charges", "王丙"): ("disagreement", ["盗窃"], ["诈骗罪"]),
    }


def test_terms_within_the_rounding_of_days_agree_and_a_null_term_does_not():
    a = answer("criminal")["defendants"]
    a[0]["prison_months"] = 18.004
    a[1]["probation_months"] = None
    issues = check_defendants(criminal_case().parsed, validate_field("criminal", "defendants", a))
    assert [(i.field, i.subject, i.parser_value) for i in issues] == [("verdict.probation_months", "王丙", 6.0)]


def test_unknown_and_forgotten_defendants_and_birth_dates():
    a = answer("criminal")["defendants"]
    a[0]["birth_date"] = "1975年4月17日"
    a[1]["name"] = "王某"
    issues = check_defendants(criminal_case().parsed, validate_field("criminal", "defendants", a))
    got = sorted((i.field, i.subject, i.detail) for i in issues)
    assert got == [
        ("defendants.birth_date", "张甲", "birth dates differ"),
        ("defendants.name", "王丙", "the parser reads a sentence; the model lists no such defendant"),
        ("defendants.name", "王某", "not a defendant the parser read"),
    ]


def test_civil_party_roles_and_names():
    parties = [{"role": "原告", "name": "甲公司"}, {"role": "原告", "name": "李乙"}, {"role": "被告", "name": "赵某"}]
    issues = check_parties(civil_case().parsed, validate_field("civil", "parties", parties))
    got = sorted((i.field, i.subject, i.parser_value, i.llm_value) for i in issues)
    assert got == [
        ("parties.name", "王丙", "第三人", None),
        ("parties.name", "赵某", None, "被告"),
        ("parties.role", "李乙", "被告", "原告"),
    ]


def test_statutes_compare_by_law_and_article_whatever_the_name_is_written_as():
    parsed = civil_case().parsed
    cited = [{"law": "《合同法》", "article": 109}, {"law": "中华人民共和国合同法", "article": 8}]
    issues = check_statutes(parsed, validate_field("civil", "statutes", cited))
    got = sorted((i.detail, i.subject) for i in issues)
    assert got == [
        ("cited by the model, not read by the parser", "中华人民共和国合同法第8条"),
        ("in the court's basis, omitted by the model", "中华人民共和国民事诉讼法第144条"),
    ]


def test_ungrounded_items_are_dropped_and_recorded_and_an_ungrounded_proves_is_cleared():
    evidence = [
        {"party": "court", "item": "银行转账记录三份", "proves": None},
        {"party": "court", "item": "监控录像", "proves": "被告人张甲多次到外地销赃并挥霍所得款项"},
        {"party": "court", "item": "被害人陈述", "proves": None},
    ]
    kept, issues = crosscheck(
        criminal_case(), valid("criminal", evidence=evidence, court_findings="被告人另在外地作案三起")
    )
    assert [e["item"] for e in kept["evidence"]] == ["监控录像", "被害人陈述"]
    assert kept["evidence"][0]["proves"] is None and kept["court_findings"] is None
    got = sorted((i.field, i.kind, i.subject) for i in issues)
    assert got == [
        ("court_findings", "ungrounded", None),
        ("evidence.item", "ungrounded", "#1"),
        ("evidence.proves", "ungrounded", "#2"),
    ]

"""CLI and DEF on hand-made cases: the paper's exact substring rule, our normalised variant, party parsing."""

from __future__ import annotations

import pytest

from steps.mile.matching import match_parties
from steps.mile.parties import parse_defendants, parse_parties, parse_plaintiff

PLAINTIFF = "身份：原告，姓名：李恩泉，性别：男，出生日期：1970年3月17日，民族：汉族，地址：西虹市历下区，"
TWO_PEOPLE = (
    "身份：被告1，姓名：冯伟，性别：女，出生日期：1980年10月5日，民族：汉族，地址：西虹市历城区，"
    "身份：被告2，姓名：孙一海，性别：男，出生日期：1966年5月27日，民族：汉族，地址：西虹市，"
)
PERSON_AND_COMPANY = (
    "身份：被告1，姓名：冯伟，性别：女，出生日期：1980年10月5日，民族：汉族，地址：西虹市历城区，"
    "身份：被告2，公司名称：西虹市恒丰建材有限公司，地址：西虹市香蕉区，负责人或法定代表人：周建国，"
)


def cli(header: str, **kw) -> float | None:
    return match_parties([parse_plaintiff(PLAINTIFF, "personal")], header, **kw).value


@pytest.mark.parametrize(
    ("written", "exact", "normalised"),
    [
        ("1970年3月17日生", 1.0, 1.0),
        ("1970-03-17", 0.8, 1.0),
        ("1970年03月17日", 0.8, 1.0),
        ("1970/3/17", 0.8, 1.0),
        ("1970年3月18日", 0.8, 0.8),
    ],
)
def test_dates_match_only_verbatim_in_the_paper_rule(written, exact, normalised):
    header = f"原告：李恩泉，男，{written}，汉族，住西虹市历下区。"
    assert cli(header) == pytest.approx(exact)
    assert cli(header, normalised=True) == pytest.approx(normalised)


def test_ethnicity_needs_the_zu_suffix_except_in_the_normalised_variant():
    header = "原告：李恩泉，男，1970年3月17日生，汉，地址：西虹市历下区。"
    assert cli(header) == pytest.approx(0.8)
    assert cli(header, normalised=True) == pytest.approx(1.0)


def test_a_value_written_only_after_the_header_does_not_count():
    complaint_header = "原告：李恩泉，男，汉族，地址：西虹市历下区。\n被告：冯伟。\n"
    m = match_parties([parse_plaintiff(PLAINTIFF, "personal")], complaint_header)
    assert (m.hits, m.fields, m.missing) == (4, 5, ("原告.出生日期",))


def test_several_defendants_are_pooled_within_the_instance():
    header = (
        "被告一：冯伟，女，1980年10月5日生，汉族，地址：西虹市历城区。\n被告二：孙一海，男，1966年5月27日生，汉族。"
    )
    m = match_parties(parse_defendants(TWO_PEOPLE), header)
    # 被告2's address 西虹市 occurs inside 被告1's: the reference's substring rule counts it (a known leniency)
    assert (m.hits, m.fields) == (10, 10)
    m = match_parties(parse_defendants(TWO_PEOPLE), header.replace("孙一海", "孙某"))
    assert (m.hits, m.fields, m.missing) == (9, 10, ("被告2.姓名",))


def test_a_company_defendant_has_three_fields_and_a_person_five():
    defendants = parse_defendants(PERSON_AND_COMPANY)
    assert [d.kind for d in defendants] == ["person", "company"]
    header = (
        "被告一：冯伟，女，1980年10月5日生，汉族，地址：西虹市历城区。\n"
        "被告二：西虹市恒丰建材有限公司，地址：西虹市香蕉区。"
    )
    m = match_parties(defendants, header)
    assert (m.hits, m.fields, m.missing) == (7, 8, ("被告2.负责人或法定代表人",))


def test_a_company_plaintiff_follows_plaintiff_type():
    text = "身份：原告，公司名称：某某银行股份有限公司，地址：西虹市香蕉区，负责人或法定代表人：高洪明，行长，"
    p = parse_plaintiff(text, "company")
    assert p.kind == "company" and p.extra == ("行长",)
    m = match_parties([p], "原告：某某银行股份有限公司，住所地西虹市香蕉区，法定代表人高洪明，行长。")
    assert (m.hits, m.fields) == (3, 3)


def test_empty_ground_truth_values_are_dropped_unless_the_reference_rule_is_asked_for():
    text = "身份：原告，姓名：张三，性别：男，出生日期：1990年1月1日，民族：汉族，地址：，"
    p = parse_plaintiff(text, "personal")
    assert match_parties([p], "原告：张三，男。").value == pytest.approx(2 / 4)
    assert match_parties([p], "原告：张三，男。", count_empty=True).value == pytest.approx(3 / 5)
    assert match_parties([p], "").value == 0.0


def test_a_block_without_its_separating_comma_is_still_two_parties():
    text = (
        "身份：被告1，公司名称：某某公司2，地址：西虹市苹果区，负责人或法定代表人：徐星东身份：被告2，"
        "公司名称：某某公司3，地址：西虹市葡萄区，负责人或法定代表人：黄某"
    )
    first, second = parse_parties(text)
    assert first.fields["负责人或法定代表人"] == "徐星东" and second.role == "被告2"
    assert second.fields == {"公司名称": "某某公司3", "地址": "西虹市葡萄区", "负责人或法定代表人": "黄某"}


def test_every_mile_party_string_parses(mile):
    counts = {1: 344, 2: 238, 3: 75, 4: 13, 5: 9, 6: 10, 7: 1, 8: 1, 11: 2}
    seen: dict[int, int] = {}
    for row in mile.itertuples():
        p = parse_plaintiff(row.plaintiff, row.plaintiff_type)
        assert p.role == "原告" and p.name
        n = len(parse_defendants(row.defendant))
        seen[n] = seen.get(n, 0) + 1
    assert seen == counts

import pytest

from steps.j1.extract.header import parse_header, procedure_from_case_number
from steps.j1.extract.model import IssueKind, Procedure


@pytest.mark.parametrize(
    ("number", "procedure"),
    [
        ("（2017）沪0120刑初684号", Procedure.FIRST_INSTANCE),
        ("（2015）温龙刑初字第705号", Procedure.FIRST_INSTANCE),
        ("（2011）西刑二初字第20号", Procedure.FIRST_INSTANCE),
        ("（2015）西刑速初字第00088号", Procedure.FIRST_INSTANCE),
        ("（2019）川01刑终619号", Procedure.APPEAL),
        ("（2015）潍刑二终字第188号", Procedure.APPEAL),
        ("（2018）冀0921刑再3号", Procedure.RETRIAL),
        ("（2020）京0105民初123号", Procedure.FIRST_INSTANCE),
        ("（2017）浙0781刑254号", Procedure.OTHER),
    ],
)
def test_procedure_from_case_number(number, procedure):
    assert procedure_from_case_number(number) is procedure


def test_heading():
    header, _, issues = parse_header("上海市奉贤区人民法院 刑事判决书 （2017）沪0120刑初684号 公诉机关上海市…")
    assert (header.court, header.doc_type, header.case_number, header.year) == (
        "上海市奉贤区人民法院",
        "刑事判决书",
        "（2017）沪0120刑初684号",
        2017,
    )
    assert header.procedure is Procedure.FIRST_INSTANCE
    assert issues == []


def test_title_line_before_the_court():
    text = (
        "黄某非法持有枪支二审刑事判决书 广西壮族自治区百色市中级人民法院 刑事附带民事判决书 "
        "（2016）桂10刑终254号 原公诉机关"
    )
    header, _, _ = parse_header(text)
    assert header.court == "广西壮族自治区百色市中级人民法院"
    assert header.doc_type == "刑事附带民事判决书"
    assert header.title == "黄某非法持有枪支二审刑事判决书"
    assert header.procedure is Procedure.APPEAL


def test_missing_case_number_is_reported():
    header, _, issues = parse_header("青海省格尔木市人民法院 刑事判决书 公诉机关格尔木市人民检察院。")
    assert header.case_number is None
    assert ("header.case_number", IssueKind.MISSING) in [(i.field, i.kind) for i in issues]

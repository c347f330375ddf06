"""The heading of a judgment: court, document type, case number and procedure.

Case numbers follow 《关于人民法院案件案号的若干规定》 (2016): （2017）沪0120刑初684号 = (year) court code, case type
(刑/民/行), procedure (初 first instance, 终 appeal, 再/监 retrial …) and serial number. Before 2016 the form was
（2015）温龙刑初字第705号. The procedure comes from the case number; without one, from the title (一审/二审).
"""

from __future__ import annotations

import re

from steps.j1.extract.model import Header, Issue, IssueKind, Procedure

COURT = re.compile(r"[\u4e00-\u9fa5（）()]{2,40}?(?:人民法院|法院|法庭)")
DOC_TYPE = re.compile(r"(刑事附带民事|刑事|民事|行政|执行)?(判决书|裁定书|调解书|决定书|通知书)")
CASE_NUMBER = re.compile(
    r"(?:[（(〔［\[]\s*(?P<year>\d{4})\s*[）)〕］\]])?\s*(?P<court>[\u4e00-\u9fa5\d]{0,12}?)"
    r"(?P<type>刑|民|行|执|赔|司救|国赔)(?P<mid>[\u4e00-\u9fa5]{0,4}?)字?第?\s*(?P<serial>\d+)\s*号"
)
_PROCEDURES = {"初": Procedure.FIRST_INSTANCE, "终": Procedure.APPEAL, "再": Procedure.RETRIAL, "监": Procedure.RETRIAL}
_HEADER_SPAN = 240  # the heading is within the first lines; later case numbers are cited earlier judgments


def procedure_from_case_number(case_number: str) -> Procedure:
    """初 → first instance, 终 → appeal, 再/监 → retrial, anything else → other."""
    match = CASE_NUMBER.search(case_number)
    return _procedure(match) if match else Procedure.OTHER


def _procedure(number: re.Match[str]) -> Procedure:
    # the first procedure mark after the case type: 刑初, 刑二初, 刑速初, 刑再终 (a retrial heard on appeal)
    marks = [c for c in number["mid"] if c in _PROCEDURES]
    return _PROCEDURES[marks[0]] if marks else Procedure.OTHER


def parse_header(text: str) -> tuple[Header, int, list[Issue]]:
    """The heading of a full text, the offset where it ends, and what could not be read."""
    issues: list[Issue] = []
    head = text[:_HEADER_SPAN]
    number = CASE_NUMBER.search(head)
    court, doc_type = _court_and_type(head)
    end = max(m.end() for m in (number, doc_type, court) if m) if (number or doc_type or court) else 0
    title = head[: court.start()].strip() if court and court.start() > 0 else None
    if title and not DOC_TYPE.search(title):
        title = None
    procedure = _procedure(number) if number else Procedure.OTHER
    if procedure is Procedure.OTHER:
        procedure = _title_procedure(title or "")
    if not court:
        issues.append(Issue("header.court", IssueKind.MISSING, "no court name before the document type"))
    if not doc_type:
        issues.append(Issue("header.doc_type", IssueKind.MISSING, "no 判决书/裁定书 in the heading"))
    if not number:
        issues.append(Issue("header.case_number", IssueKind.MISSING, "no case number in the heading"))
    if procedure is Procedure.OTHER:
        issues.append(Issue("header.procedure", IssueKind.UNPARSED, "procedure not stated by case number or title"))
    header = Header(
        court=court.group(0) if court else None,
        doc_type="".join(g or "" for g in doc_type.groups()) if doc_type else None,
        case_number=number.group(0).replace(" ", "") if number else None,
        year=int(number["year"]) if number and number["year"] else None,
        procedure=procedure,
        title=title,
    )
    return header, end, issues


def _court_and_type(head: str) -> tuple[re.Match[str] | None, re.Match[str] | None]:
    """The court and the document type that follows it; a title line before them may repeat the type."""
    courts = list(COURT.finditer(head))
    for court in courts:
        doc_type = DOC_TYPE.match(head, court.end() + len(head[court.end() :]) - len(head[court.end() :].lstrip()))
        if doc_type:
            return court, doc_type
    return (courts[0] if courts else None), DOC_TYPE.search(head)


def _title_procedure(text: str) -> Procedure:
    if re.search(r"二审|上诉", text):
        return Procedure.APPEAL
    if re.search(r"一审|初审", text):
        return Procedure.FIRST_INSTANCE
    if "再审" in text:
        return Procedure.RETRIAL
    return Procedure.OTHER

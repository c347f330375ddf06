"""`parse_criminal`: a full-text criminal judgment (刑事判决书 / 刑事裁定书) into a `ParsedCase`."""

from __future__ import annotations

import re
from dataclasses import fields, replace

from steps.j1.extract.header import parse_header
from steps.j1.extract.model import DefendantVerdict, Issue, IssueKind, ParsedCase, Party, Procedure, Sections, Statute
from steps.j1.extract.parties import is_party_paragraph, parse_parties
from steps.j1.extract.sections import is_record, label_paragraph, paragraphs, split_criminal_body
from steps.j1.extract.statutes import find_appendix_statutes, find_statutes
from steps.j1.extract.text_checks import check_text
from steps.j1.extract.verdict import parse_verdict

DEFENDANT_ROLES = ("被告人", "上诉人", "原审被告人", "被告单位", "原审被告单位", "原审上诉人", "罪犯", "申诉人")
# the sections a criminal judgment of each procedure is expected to have
EXPECTED = {
    Procedure.FIRST_INSTANCE: ("record", "indictment", "facts", "evidence", "reasoning", "verdict", "appeal_notice"),
    Procedure.APPEAL: ("record", "first_instance", "facts", "reasoning", "verdict", "appeal_notice"),
}
_MAINTAINED = re.compile(r"驳回上诉|维持原判|驳回抗诉")


def _split_parties(body: list[str]) -> tuple[list[str], list[str]]:
    """Party paragraphs (with their continuations) and the paragraphs from the procedural record on."""
    parties: list[str] = []
    for i, paragraph in enumerate(body):
        if is_party_paragraph(paragraph) and not is_record(paragraph):
            parties.append(paragraph)
        elif parties and not is_record(paragraph) and label_paragraph(paragraph) is None:
            parties[-1] += paragraph  # a party paragraph broken across lines
        else:
            return parties, body[i:]
    return parties, []


def _statutes(sections: Sections) -> tuple[list[Statute], list[Issue]]:
    """Citations per section; the source says where each was cited."""
    statutes: list[Statute] = []
    issues: list[Issue] = []
    for f in fields(Sections):
        text = getattr(sections, f.name)
        if not text:
            continue
        if f.name == "appendix":
            found = find_appendix_statutes(text)
        else:
            found, problems = find_statutes(text, empty_inner="刑事诉讼法")
            issues += problems
        statutes += [replace(s, source=f.name) for _, s in found]
    return statutes, issues


def _sentences(sections: Sections, parties: list[Party]) -> tuple[list[DefendantVerdict], list[str], list[Issue]]:
    """Sentences per defendant, the other verdict items, and issues (missing or unmatched defendants)."""
    names = [p.name for p in parties if re.sub(r"（.*", "", p.role) in DEFENDANT_ROLES]
    if not sections.verdict:
        return [], [], [Issue("verdict", IssueKind.MISSING, "no 判决如下 / 裁定如下 section")]
    defendants, others, issues = parse_verdict(sections.verdict, names)
    if not defendants and any(_MAINTAINED.search(o) for o in others):
        original = _original_verdict(sections)
        if original:
            defendants, _, issues = parse_verdict(original, names)
            issues.append(Issue("verdict", IssueKind.INFERRED, "appeal dismissed: sentence read from the original"))
    if not defendants:
        issues.append(Issue("verdict", IssueKind.MISSING, f"no sentence in the verdict: {sections.verdict[:40]}"))
    found = {d.name for d in defendants}
    issues += [Issue("verdict", IssueKind.MISSING, f"no sentence for defendant {n}") for n in names if n not in found]
    if names:
        issues += [
            Issue("verdict", IssueKind.CONFLICT, f"{n} is sentenced but not among the parties")
            for n in found - set(names)
        ]
    return defendants, others, issues


def _original_verdict(sections: Sections) -> str | None:
    """The first-instance verdict quoted in an appeal (原判…判决：被告人甲犯…)."""
    for text in (sections.first_instance, sections.record, sections.facts):
        if text and (m := re.search(r"判决[：:]?\s*(?=[一被上原]|[^，。]{1,10}犯)", text)):
            return text[m.end() :]
    return None


PARTICULARS = ("gender", "birth_date", "ethnicity", "education", "occupation", "address", "custody_status")


def _particular_issues(parties: list[Party]) -> list[Issue]:
    """One issue per defendant naming the particulars the document does not state."""
    issues = []
    for p in parties:
        if re.sub(r"（.*", "", p.role) in DEFENDANT_ROLES and p.entity == "person":
            absent = [f for f in PARTICULARS if getattr(p, f) is None]
            if "address" in absent and p.domicile:
                absent.remove("address")
            if absent:
                issues.append(Issue(f"parties.{p.name}", IssueKind.MISSING, "not stated: " + ", ".join(absent)))
    return issues


def _section_issues(sections: Sections, procedure: Procedure) -> list[Issue]:
    issues = []
    for name in EXPECTED.get(procedure, ("record", "reasoning", "verdict")):
        if getattr(sections, name) is None and name != "verdict":
            detail = f"no {name} section"
            if name == "facts" and sections.indictment and sections.evidence:
                detail += "; the court adopted the facts of the indictment (上述事实…足以认定)"
            if name == "indictment" and sections.record and "指控" in sections.record:
                detail += "; the record names the charge only (…起诉书指控被告人…犯…罪)"
            issues.append(Issue(f"sections.{name}", IssueKind.MISSING, detail))
    return issues


def parse_criminal(full_text: str, *, source_id: str | None = None) -> ParsedCase:
    """Parse a full-text criminal judgment; whatever cannot be read is listed in `issues`."""
    text, issues = check_text(full_text or "")
    if not text.strip():
        issues.append(Issue("text", IssueKind.MISSING, "empty document"))
    header, end, header_issues = parse_header(text)
    party_paragraphs, body = _split_parties(paragraphs(text[end:]))
    parties, party_issues = parse_parties(party_paragraphs)
    sections = split_criminal_body(body) if body else Sections()
    statutes, statute_issues = _statutes(sections)
    defendants, others, verdict_issues = _sentences(sections, parties)
    if not parties:
        party_issues.append(Issue("parties", IssueKind.MISSING, "no party paragraphs after the heading"))
    if not [s for s in statutes if s.source != "appendix"]:
        statute_issues.append(Issue("statutes", IssueKind.MISSING, "no cited provision outside the appendix"))
    return ParsedCase(
        kind="criminal",
        source_id=source_id,
        header=header,
        parties=parties,
        sections=sections,
        statutes=statutes,
        defendants=defendants,
        rulings=others,
        costs=None,
        issues=issues
        + header_issues
        + party_issues
        + _particular_issues(parties)
        + _section_issues(sections, header.procedure)
        + statute_issues
        + verdict_issues,
    )

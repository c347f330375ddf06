"""Cross-checking the model's answer against the parser and the document.

Values both read (defendants' names, birth dates, charges, terms and fines; civil parties; cited statutes) must
agree: each difference is a `disagreement` row, and the case keeps the parser's value. Free-text values the
model alone provides must be grounded in the document (`grounding.py`): an ungrounded text or list item is an
`ungrounded` row and is not stored; an evidence item whose `proves` alone is ungrounded keeps its item.
"""

from __future__ import annotations

import re
from typing import Any

from steps.j1.extract.answers import LLM_COLUMNS
from steps.j1.extract.criminal import DEFENDANT_ROLES
from steps.j1.extract.dates import parse_date
from steps.j1.extract.grounding import Grounding
from steps.j1.extract.inputs import CaseInput
from steps.j1.extract.issues import IssueRow, LLMIssue, Stage
from steps.j1.extract.laws import law_key, strip_marks
from steps.j1.extract.model import ParsedCase

CIVIL_ROLES = ("原告", "被告", "第三人")
COURT_SOURCES = ("reasoning",)  # the 依照 clause; a verdict cites only the late-payment rule
TOLERANCE = 0.01  # months and yuan: the parser rounds day terms to 2 decimals


def crosscheck(case: CaseInput, values: dict[str, Any]) -> tuple[dict[str, Any], list[IssueRow]]:
    """The LLM columns to store (grounded values only) and the cross-check issues."""
    issues: list[IssueRow] = []
    if "defendants" in values:
        issues += check_defendants(case.parsed, values["defendants"])
    if "parties" in values:
        issues += check_parties(case.parsed, values["parties"])
    if "statutes" in values:
        issues += check_statutes(case.parsed, values["statutes"])
    grounding = Grounding(case.text)
    kept: dict[str, Any] = {}
    for name in LLM_COLUMNS:
        if name in values:
            kept[name], found = ground(name, values[name], grounding)
            issues += found
    return kept, issues


def _disagree(field: str, detail: str, subject: str | None, parser: Any, llm: Any) -> IssueRow:
    return IssueRow(Stage.CROSSCHECK, field, LLMIssue.DISAGREEMENT, detail, subject, parser, llm)


def _charges(charges: list[str]) -> list[str]:
    return sorted({re.sub(r"罪$", "", c.strip()) for c in charges})


def _differs(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return (a is None) != (b is None)
    return abs(a - b) > TOLERANCE


def check_defendants(parsed: ParsedCase, answer: list[dict]) -> list[IssueRow]:
    """Names, birth dates and sentences of criminal defendants."""
    issues: list[IssueRow] = []
    verdicts = {d.name: d for d in parsed.defendants}
    births = {p.name: p.birth_date for p in parsed.parties if re.sub(r"（.*", "", p.role) in DEFENDANT_ROLES}
    named = {d["name"] for d in answer}
    for name in sorted(verdicts.keys() - named):
        issues.append(
            _disagree(
                "defendants.name", "the parser reads a sentence; the model lists no such defendant", name, name, None
            )
        )
    for d in answer:
        name = d["name"]
        if name not in verdicts and name not in births:
            issues.append(_disagree("defendants.name", "not a defendant the parser read", name, None, name))
            continue
        if name in births and births[name] != _iso(d["birth_date"]):
            issues.append(_disagree("defendants.birth_date", "birth dates differ", name, births[name], d["birth_date"]))
        verdict = verdicts.get(name)
        if verdict is None:
            issues.append(_disagree("verdict", "the parser read no sentence for this defendant", name, None, d))
            continue
        if _charges(list(verdict.charges)) != _charges(d["charges"]):
            issues.append(_disagree("verdict.charges", "charges differ", name, list(verdict.charges), d["charges"]))
        for key in ("prison_months", "probation_months", "fine_yuan"):
            if _differs(getattr(verdict, key), d[key]):
                issues.append(_disagree(f"verdict.{key}", f"{key} differs", name, getattr(verdict, key), d[key]))
    return issues


def _iso(value: str | None) -> str | None:
    if value is None or re.fullmatch(r"\d{4}(?:-\d{2}){0,2}", value):
        return value
    return parse_date(value) or value


def check_parties(parsed: ParsedCase, answer: list[dict]) -> list[IssueRow]:
    """Names and roles of civil plaintiffs, defendants and third parties."""
    ours = {p.name: p.role for p in parsed.parties if p.role in CIVIL_ROLES}
    theirs = {p["name"]: p["role"] for p in answer}
    issues = [
        _disagree("parties.name", "party not named by the model", n, r, None)
        for n, r in ours.items()
        if n not in theirs
    ]
    for name, role in theirs.items():
        if name not in ours and name not in {p.name for p in parsed.parties}:
            issues.append(_disagree("parties.name", "not a party the parser read", name, None, role))
        elif name in ours and ours[name] != role:
            issues.append(_disagree("parties.role", "roles differ", name, ours[name], role))
    return issues


def check_statutes(parsed: ParsedCase, answer: list[dict]) -> list[IssueRow]:
    """(law, article) pairs: cited by the model but never read by the parser, or in the court's basis but omitted."""
    read = {(law_key(s.law), s.article) for s in parsed.statutes}
    basis = {(law_key(s.law), s.article) for s in parsed.statutes if s.basis and s.source in COURT_SOURCES}
    cited = {(law_key(s["law"]), s["article"]) for s in answer}
    issues = [
        _disagree("statutes", "cited by the model, not read by the parser", _name(p), None, _name(p))
        for p in sorted(cited - read)
    ]
    issues += [
        _disagree("statutes", "in the court's basis, omitted by the model", _name(p), _name(p), None)
        for p in sorted(basis - cited)
    ]
    return issues


def _name(pair: tuple[str, int]) -> str:
    return f"{strip_marks(pair[0])}第{pair[1]}条"


def ground(name: str, value: Any, grounding: Grounding) -> tuple[Any, list[IssueRow]]:
    """The grounded part of one LLM field and an `ungrounded` row for each value left out."""
    issues: list[IssueRow] = []

    def ok(text: str, field: str, subject: str | None, shown: Any) -> bool:
        match = grounding.check(text)
        if not match.grounded:
            issues.append(IssueRow(Stage.CROSSCHECK, field, LLMIssue.UNGROUNDED, match.reason(), subject, None, shown))
        return match.grounded

    if value is None:
        return None, issues
    if isinstance(value, str):
        return (value if ok(value, name, None, value) else None), issues
    kept: list[str | dict[str, Any]] = []
    for i, item in enumerate(value, start=1):
        subject = f"#{i}"
        if isinstance(item, str):
            kept += [item] if ok(item, name, subject, item) else []
        elif "item" in item:  # evidence
            if ok(item["item"], f"{name}.item", subject, item):
                proves = item["proves"]
                if proves is not None and not ok(proves, f"{name}.proves", subject, item):
                    proves = None
                kept.append({**item, "proves": proves})
        elif ok(item["text"], name, subject, item):  # a statement
            kept.append(item)
    return kept, issues

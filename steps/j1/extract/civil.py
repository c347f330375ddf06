"""`parse_civil`: a sectioned civil case (a C3RD row) into a `ParsedCase`.

The C3RD rows have no heading and no party particulars: the court and case number are reported missing, parties
come from the `parties` column (completed with roles and representatives named in the procedural record), and the
sections come from splitting `accusation` and `result`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from steps.j1.extract.civil_sections import rulings, split_accusation, split_result
from steps.j1.extract.costs import parse_costs
from steps.j1.extract.header import DOC_TYPE
from steps.j1.extract.model import Header, Issue, IssueKind, ParsedCase, Party, Procedure, Sections, Statute
from steps.j1.extract.parties import ORG_NAME
from steps.j1.extract.statutes import find_statutes
from steps.j1.extract.text_checks import check_text

ENTITIES = {"Person": "person", "Corporation": "organisation", "Organization": "organisation"}
ROLE_WORDS = ("原告", "被告", "第三人", "申请人", "被申请人", "上诉人", "被上诉人")
_REPRESENTATIVE = re.compile(
    r"(?P<role>委托诉讼代理人|委托代理人|诉讼代理人|法定代理人|法定代表人|负责人)"
    r"(?P<name>[\u4e00-\u9fa5ＸX×*]{2,5}?)(?=到庭|、|，|。|及|均|和|出庭|参加|$)"
)
EXPECTED = ("record", "claims", "facts", "reasoning", "verdict", "costs", "appeal_notice")


def _raw_parties(raw: list[dict]) -> list[dict]:
    """Rows of {name, entity, role}; C3RD sometimes stores the four fields as four parallel lists."""
    if raw and all(sum(v is not None for v in p.values()) <= 1 for p in raw):
        columns = {k: [p[k] for p in raw if p.get(k) is not None] for k in ("name", "name_text", "entity", "role")}
        names = columns["name"] or columns["name_text"]
        return [
            {
                "name": name,
                "entity": columns["entity"][i] if i < len(columns["entity"]) else None,
                "role": columns["role"][i] if i < len(columns["role"]) else None,
            }
            for i, name in enumerate(names)
        ]
    return [
        {"name": p.get("name") or p.get("name_text"), "entity": p.get("entity"), "role": p.get("role")} for p in raw
    ]


def record_roles(record: str, causes: Sequence[str] = ()) -> dict[str, str]:
    """Roles of the names listed in the procedural record (原告甲、乙与被告丙、第三人丁…纠纷一案).

    The cause (案由) follows the last name without a separator, so a known cause is cut off first; what is left
    must look like a name: a person (at most four characters) or an organisation (公司, 委员会 …).
    """
    head = re.sub(r"[（(][^）)]*[）)]", "", re.split(r"纠纷|一案|案由|，", record, maxsplit=1)[0])
    for cause in causes:
        stem = re.sub(r"纠纷$", "", cause)
        if stem and stem in head:
            head = head[: head.index(stem)]
    roles: dict[str, str] = {}
    pattern = re.compile(rf"({'|'.join(sorted(ROLE_WORDS, key=len, reverse=True))})")
    chunks = pattern.split(head)
    for role, names in zip(chunks[1::2], chunks[2::2], strict=False):
        for name in re.split(r"[、，,]", names):
            name = re.sub(r"(?:因|为|就)?(?:与|及|诉|和|同|等)$", "", name.strip())  # 原告甲因与被告乙…
            person = 2 <= len(name) <= 4
            if (person or ORG_NAME.search(name)) and not any(name in c for c in causes):
                roles.setdefault(name, role)
    return roles


def civil_parties(raw: list[dict], record: str, causes: Sequence[str] = ()) -> tuple[list[Party], list[Issue]]:
    """Parties from the `parties` column, roles completed from the record, representatives from the record."""
    issues: list[Issue] = []
    roles = record_roles(record, causes)
    parties: list[Party] = []
    for p in _raw_parties(list(raw)):
        name = p["name"]
        if not name:
            continue
        role = p["role"] if p["role"] in ROLE_WORDS else roles.get(name)
        if role is None:
            role = "unknown"
            issues.append(Issue(f"parties.{name}.role", IssueKind.MISSING, "role neither in the data nor the record"))
        elif p["role"] in ROLE_WORDS and roles.get(name, role) != role:
            issues.append(Issue(f"parties.{name}.role", IssueKind.CONFLICT, f"data {role}, record {roles[name]}"))
        entity = ENTITIES.get(p["entity"] or "", "organisation" if ORG_NAME.search(name) else "person")
        parties.append(Party(role=role, name=name, entity=entity))
    known = {p.name for p in parties}
    for name, role in roles.items():
        if name not in known and not any(name in k or k in name for k in known) and not _IS_ALIAS.search(name):
            entity = "organisation" if ORG_NAME.search(name) else "person"
            parties.append(Party(role=role, name=name, entity=entity))
            issues.append(Issue(f"parties.{name}", IssueKind.INFERRED, "named in the record, not in the parties data"))
    issues.append(Issue("parties", IssueKind.MISSING, "particulars (gender, birth, address …) are not in C3RD"))
    return _with_representatives(parties, record), issues


_IS_ALIAS = re.compile(r"以下简称|^[原被]告$")


_ALIAS = re.compile(r"(?P<full>[^，。、；：:（(与和及]+?)[（(]以下简称[：:]?[“\"]?(?P<short>[^”\"）)]+)[”\"]?[）)]")


def _with_representatives(parties: list[Party], record: str) -> list[Party]:
    """Representatives named in the record, linked to the party named last before them (or its short name)."""
    aliases = {p.name: p.name for p in parties}
    for m in _ALIAS.finditer(record):
        full = next((p.name for p in parties if m["full"].endswith(p.name)), None)
        if full:
            aliases[m["short"]] = full
    out = list(parties)
    for m in _REPRESENTATIVE.finditer(record):
        before = record[: m.start()]
        seen = [(before.rfind(a), full) for a, full in aliases.items() if before.rfind(a) >= 0]
        principal = max(seen)[1] if seen else None
        if m["role"] in ("法定代表人", "负责人") and principal:
            out = [_set_rep(p, m["name"]) if p.name == principal else p for p in out]
        out.append(Party(role=m["role"], name=m["name"], represents=principal))
    return out


def _set_rep(party: Party, name: str) -> Party:
    return replace(party, legal_representative=party.legal_representative or name)


def _header(row: dict) -> tuple[Header, list[Issue]]:
    title = row.get("title") or ""
    doc_type = DOC_TYPE.search(title[-8:])
    procedure = row.get("procedure") or ""
    proc = (
        Procedure.FIRST_INSTANCE
        if "一审" in procedure
        else Procedure.APPEAL
        if "二审" in procedure
        else Procedure.RETRIAL
        if "再审" in procedure
        else Procedure.OTHER
    )
    issues = [
        Issue("header.court", IssueKind.MISSING, "the sectioned civil data has no heading"),
        Issue("header.case_number", IssueKind.MISSING, "the sectioned civil data has no heading"),
    ]
    if not doc_type:
        issues.append(Issue("header.doc_type", IssueKind.MISSING, f"no document type in the title {title[-12:]!r}"))
    if proc is Procedure.OTHER:
        issues.append(Issue("header.procedure", IssueKind.UNPARSED, f"procedure {procedure!r}"))
    kind = "".join(g or "" for g in doc_type.groups()) if doc_type else None
    return Header(doc_type=kind, procedure=proc, title=title or None), issues


def parse_civil(row: dict) -> ParsedCase:
    """Parse one C3RD civil case (a row of judgments_civil.parquet as a dict)."""
    issues: list[Issue] = []
    texts = {}
    for key in ("record", "accusation", "reason", "result"):
        value = row.get(key)
        # some rows keep line breaks as the two characters \\n
        texts[key], problems = check_text(value.replace("\\n", "\n") if isinstance(value, str) else "")
        issues += [replace(i, field=f"{key}.{i.field}") for i in problems]
    header, header_issues = _header(row)
    accusation = split_accusation(texts["accusation"])
    result = split_result(texts["result"])
    sections = Sections(
        record=texts["record"] or None,
        claims=accusation.get("claims"),
        plaintiff_statement=accusation.get("plaintiff_statement"),
        defence=accusation.get("defence"),
        facts=accusation.get("facts"),
        evidence=accusation.get("evidence"),
        reasoning=texts["reason"] or None,
        verdict=result.get("verdict"),
        costs=result.get("costs"),
        appeal_notice=result.get("appeal_notice"),
    )
    raw_parties = row.get("parties")
    more = row.get("causes")
    causes = [c for c in [row.get("cause"), *(more if more is not None else [])] if c]
    parties, party_issues = civil_parties([] if raw_parties is None else list(raw_parties), texts["record"], causes)
    statutes: list[Statute] = []
    for name in ("reasoning", "verdict", "claims", "plaintiff_statement", "facts"):
        found, problems = find_statutes(getattr(sections, name) or "", empty_inner="民事诉讼法")
        statutes += [replace(s, source=name) for _, s in found]
        issues += problems
    if re.search(r"关于适用的解释", texts["reason"]):
        issues.append(Issue("statutes", IssueKind.AMBIGUOUS, "《最高人民法院关于适用的解释》 read as 民事诉讼法解释"))
    costs, cost_issues = parse_costs(sections.costs) if sections.costs else (None, [])
    missing = [
        Issue(f"sections.{n}", IssueKind.MISSING, f"no {n} section") for n in EXPECTED if not getattr(sections, n)
    ]
    if not [s for s in statutes if s.source == "reasoning"]:
        issues.append(Issue("statutes", IssueKind.MISSING, "no provision cited in the reasoning"))
    items = rulings(sections.verdict or "")
    if not items:
        issues.append(Issue("rulings", IssueKind.MISSING, "no judgment items"))
    return ParsedCase(
        kind="civil",
        source_id=row.get("source_id"),
        header=header,
        parties=parties,
        sections=sections,
        statutes=statutes,
        rulings=items,
        costs=costs,
        issues=issues + header_issues + party_issues + missing + cost_issues,
    )

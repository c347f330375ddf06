"""Reading an extracted case (a `cases.parquet` row) into what J1's roles are given and what metrics compare.

Each party is rendered as a line of its particulars (only those the judgment states: C3RD civil cases carry
names and roles only). Nothing here invents a value: a field the case lacks is reported missing, and the
instance builder skips the instance with that reason.
"""

from __future__ import annotations

import re
from typing import Any

PARTICULARS = (
    ("gender", "性别"),
    ("birth_date", "出生日期"),
    ("ethnicity", "民族"),
    ("address", "住址"),
    ("occupation", "职业"),
    ("education", "文化程度"),
)
ENTITY_PARTICULARS = (("registered_address", "住所"), ("address", "住所"), ("legal_representative", "法定代表人"))
# Where the court itself applies a provision (the III-6 ground truth); the parties' citations are not it.
COURT_SOURCES = ("reasoning", "verdict", "appendix")


def is_entity(party: dict[str, Any]) -> bool:
    return party.get("entity") not in (None, "person")


def party_text(party: dict[str, Any]) -> str:
    """姓名：张三，性别：男，出生日期：1980-01-02，… (or 名称/住所/法定代表人 for an organisation)."""
    if is_entity(party):
        parts = [f"名称：{party['name']}"]
        seen: set[str] = set()
        for key, label in ENTITY_PARTICULARS:
            if party.get(key) and label not in seen:
                parts.append(f"{label}：{party[key]}")
                seen.add(label)
    else:
        parts = [f"姓名：{party['name']}"] + [f"{label}：{party[key]}" for key, label in PARTICULARS if party.get(key)]
    return "，".join(parts)


def party_truth(party: dict[str, Any]) -> dict[str, Any]:
    """The ground-truth particulars of a party for the exact-match metrics (II-2 PLA/DEF/RES)."""
    if is_entity(party):
        return {
            "kind": "entity",
            "name": party["name"],
            "address": party.get("registered_address") or party.get("address"),
            "legal_representative": party.get("legal_representative"),
        }
    return {
        "kind": "person",
        "name": party["name"],
        "gender": party.get("gender"),
        "ethnicity": party.get("ethnicity"),
        "birth_date": party.get("birth_date"),
        "address": party.get("address") or party.get("domicile"),
    }


def held_particulars(party: dict[str, Any]) -> frozenset[str]:
    """Which withholdable particulars the party has (MASER's missing-detail distractor picks among them)."""
    truth = party_truth(party)
    return frozenset(
        k for k in ("gender", "birth_date", "ethnicity", "address", "legal_representative") if truth.get(k)
    )


def parties(case: dict[str, Any], *roles: str) -> list[dict[str, Any]]:
    """Parties whose role is one of `roles` exactly (原告, 被告, 被告人, …), in document order."""
    return [p for p in case.get("parties") or [] if p.get("role") in roles and p.get("name")]


def evidence(case: dict[str, Any], *sides: str) -> list[str]:
    """Evidence items offered by `sides`, each with what it proves when the judgment says so."""
    out = []
    for e in case.get("evidence") or []:
        if e["party"] in sides:
            out.append(f"{e['item']}（证明{e['proves']}）" if e.get("proves") else e["item"])
    return out


def statements(case: dict[str, Any], field: str, *sides: str) -> list[str]:
    return [s["text"] for s in case.get(field) or [] if s["side"] in sides]


def joined(items: list[str] | None) -> str | None:
    return "；".join(items) if items else None


def court_laws(case: dict[str, Any]) -> list[dict[str, Any]]:
    """Distinct (law, article, 之N) the court applies, in order of first citation (the III-6 ground truth)."""
    seen: dict[tuple, dict[str, Any]] = {}
    for s in case.get("statutes") or []:
        if s.get("source") in COURT_SOURCES:
            sub = s.get("sub_article")
            key = (s["law"], int(s["article"]), None if sub is None or sub != sub else int(sub))
            seen.setdefault(key, {"law": key[0], "article": key[1], "sub_article": key[2]})
    return list(seen.values())


def number(value: Any) -> float | None:
    """A Parquet float as a Python value (NaN → None)."""
    return None if value is None or value != value else float(value)


_SENTENCE = re.compile(r"[^。；！？\n]+[。；！？]?")
_OUTCOME_CUES = (
    "判处",
    "判决如下",
    "有期徒刑",
    "拘役",
    "管制",
    "罚金",
    "本院认为",
    "判令",
    "驳回",
    "缓刑",
    "之规定",
    "的规定",
    "条规定",
)
_CITATION = re.compile(r"《[^》]{2,40}》第[^。；]{1,12}条|第[零一二三四五六七八九十百千\d]+条")


def without_outcome(text: str, charges: list[str]) -> str:
    """Findings without any sentence that states the outcome: a charge named as …罪, a sentence or a ruling,
    or a cited provision. The judge under test is given the facts found, never the court's decision."""
    cues = [f"{c.removesuffix('罪')}罪" for c in charges] + list(_OUTCOME_CUES)
    kept = [s for s in _SENTENCE.findall(text) if not any(c in s for c in cues) and not _CITATION.search(s)]
    return "".join(kept).strip()


_NO_DEFENCE = re.compile(
    r"拒不到庭|未到庭|缺席|未提交答辩|未答辩|未作答辩|未作出答辩|未发表答辩|未出庭|未提交书面答辩|当事人围绕|本院|经审查"
)


def defence_text(case: dict[str, Any]) -> str | None:
    """The defendant's statement of defence, without the court's notes that it did not answer (未到庭, 未答辩 …)
    or its boilerplate; None when nothing the defendant said remains."""
    kept = [s for s in case.get("defence") or [] if not _NO_DEFENCE.search(s)]
    return joined(kept)

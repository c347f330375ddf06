"""Reading an extracted case (a `cases.parquet` row) into what J1's roles are given.

Each party is rendered as a line of its particulars (only those the judgment states: C3RD civil cases
carry names and roles only). Nothing here invents a value: a field the case lacks is reported missing, and
the instance builder skips the instance with that reason.
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


def particulars(party: dict[str, Any]) -> dict[str, str]:
    """The ground-truth fields of a party for the exact-match metrics (II-2 PLA/DEF/RES)."""
    keys = (
        ("name", "address", "registered_address", "legal_representative")
        if is_entity(party)
        else ("name", "gender", "birth_date", "ethnicity", "address")
    )
    return {k: str(party[k]) for k in keys if party.get(k)}


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


def joined(items: list[str], empty: str | None = None) -> str | None:
    return "；".join(items) if items else empty


_SENTENCE = re.compile(r"[^。；！？\n]+[。；！？]?")


def without_verdict(text: str, charges: list[str]) -> str:
    """Drop sentences that state the outcome (a charge named as 罪, a sentence, a ruling) from findings given
    to the judge under test, so the ground truth never reaches its prompt."""
    cues = [f"{c}罪" for c in charges] + ["判处", "判决如下", "有期徒刑", "拘役", "罚金", "本院认为", "判令"]
    kept = [s for s in _SENTENCE.findall(text) if not any(c in s for c in cues)]
    return "".join(kept).strip()

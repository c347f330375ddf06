"""The MILE party strings (`plaintiff`, `defendant`) as records (spec maser-mile §3.1).

The source writes `身份：原告，姓名：李恩泉，性别：男，…，` — flat `key：value` items separated by `，`, one block
per party starting at `身份：`. A few strings lack the comma before the next `身份：` (e.g. `负责人或法定代表人：
徐星东身份：被告2`), so blocks are cut at every `身份：` first, then into items. Items without a colon (titles such
as 董事长, stray address fragments such as 现住德清县) are kept apart as `extra` and never matched. A block is a
company when it has the key 负责人或法定代表人 (or 公司名称), otherwise a person.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PERSON_FIELDS = ("姓名", "性别", "出生日期", "民族", "地址")
COMPANY_FIELDS = ("公司名称", "地址", "负责人或法定代表人")
_BLOCK = re.compile(r"身份：")


@dataclass(frozen=True)
class Party:
    """One party: its role label (原告, 被告1 …), kind, fields in source order, and colon-less extras."""

    role: str
    kind: str  # "person" | "company"
    fields: dict[str, str]
    extra: tuple[str, ...] = field(default=())

    @property
    def name(self) -> str:
        return self.fields.get("姓名") or self.fields.get("公司名称", "")

    def matched_fields(self) -> tuple[str, ...]:
        """The fields that CLI/DEF match for this kind of party (spec §4.3)."""
        return COMPANY_FIELDS if self.kind == "company" else PERSON_FIELDS

    def describe(self) -> str:
        """`姓名：…，性别：…` over the fields this kind of party has (empty values left out)."""
        return "，".join(f"{k}：{self.fields[k]}" for k in self.matched_fields() if self.fields.get(k))


def parse_parties(text: str) -> list[Party]:
    """Every party block of a MILE party string, in order."""
    parties = []
    for block in _BLOCK.split(text)[1:]:
        items = [i.strip() for i in block.split("，")]
        role, rest = items[0], items[1:]
        fields: dict[str, str] = {}
        extra: list[str] = []
        for item in rest:
            if not item:
                continue
            if "：" in item:
                key, value = item.split("：", 1)
                fields.setdefault(key.strip(), value.strip())
            else:
                extra.append(item)
        kind = "company" if "负责人或法定代表人" in fields or "公司名称" in fields else "person"
        parties.append(Party(role, kind, fields, tuple(extra)))
    return parties


def parse_plaintiff(text: str, plaintiff_type: str) -> Party:
    """The plaintiff; its kind follows `plaintiff_type` (personal/company), as the reference evaluator does."""
    parties = parse_parties(text)
    if len(parties) != 1:
        raise ValueError(f"expected one plaintiff block, found {len(parties)}: {text[:80]!r}")
    p = parties[0]
    return Party(p.role, "company" if plaintiff_type == "company" else "person", p.fields, p.extra)


def parse_defendants(text: str) -> list[Party]:
    parties = parse_parties(text)
    if not parties:
        raise ValueError(f"no defendant block in {text[:80]!r}")
    return parties

"""II-2 exact-match components (CD PLA/DEF, DD RES): a party's particulars found in the drafted party block.

Each ground-truth field that is not empty scores 1 when it is contained in the block and 0 otherwise; the
component is the fraction found (spec j1-envs §5.6, §9.3-13). Both sides are normalised first: dates become
digits of their ISO form (1980年1月5日 and 1980-01-05 → 19800105), then whitespace and punctuation go.
A person has name, gender, ethnicity, birth date and address; an entity name, address and legal representative.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Literal

from steps.j1.extract.dates import DATE, parse_date
from steps.j1.extract.model import Party

PERSON_FIELDS = ("name", "gender", "ethnicity", "birth_date", "address")
ENTITY_FIELDS = ("name", "address", "legal_representative")
_ADDRESS_LEAD = ("住所地", "住所", "住址", "户籍地", "住")
_GENDER = {"男": "男", "女": "女", "男性": "男", "女性": "女", "male": "男", "female": "女", "m": "男", "f": "女"}


@dataclass(frozen=True)
class PartyFacts:
    """A party's ground-truth particulars; None or "" is a field the case does not state (skipped)."""

    kind: Literal["person", "entity"]
    name: str | None = None
    gender: str | None = None
    ethnicity: str | None = None
    birth_date: str | None = None  # ISO (YYYY-MM-DD, YYYY-MM) or as written
    address: str | None = None
    legal_representative: str | None = None

    @classmethod
    def from_party(cls, party: Party) -> PartyFacts:
        """From a parsed party: an organisation is an entity; its address is the registered one when given."""
        if party.entity == "organisation":
            return cls(
                "entity",
                party.name,
                address=party.registered_address or party.address,
                legal_representative=party.legal_representative,
            )
        return cls(
            "person", party.name, party.gender, party.ethnicity, party.birth_date, party.address or party.domicile
        )

    @property
    def fields(self) -> tuple[str, ...]:
        return PERSON_FIELDS if self.kind == "person" else ENTITY_FIELDS


@dataclass(frozen=True)
class FieldMatch:
    """One EM component: `value` is the fraction of stated fields found (None when the case states none)."""

    value: float | None
    matched: tuple[str, ...]
    missed: tuple[str, ...]
    skipped: tuple[str, ...]


def normalise(text: str) -> str:
    """Dates as ISO digits, full-width forms folded, whitespace and punctuation removed, lower case."""
    text = unicodedata.normalize("NFKC", text)
    text = DATE.sub(lambda m: (parse_date(m.group(0)) or m.group(0)) if m["year"] else m.group(0), text)
    return "".join(ch for ch in text if ch.isalnum()).lower()


def _truth_value(field: str, value: str) -> str:
    value = value.strip()
    if field == "gender":
        return _GENDER.get(value.lower(), value)
    if field == "ethnicity" and not value.endswith("族"):
        return value + "族"
    if field == "address":
        for lead in _ADDRESS_LEAD:
            if value.startswith(lead) and len(value) > len(lead) + 1:
                return value[len(lead) :].lstrip("：: ")
    return value


def party_fields(block: str | None, truth: PartyFacts) -> FieldMatch:
    """The EM component for one party: which stated fields the drafted block contains."""
    haystack = normalise(block or "")
    matched, missed, skipped = [], [], []
    for field in truth.fields:
        raw = getattr(truth, field)
        wanted = normalise(_truth_value(field, raw)) if raw else ""
        if not wanted:
            skipped.append(field)
        elif wanted in haystack:
            matched.append(field)
        else:
            missed.append(field)
    stated = len(matched) + len(missed)
    return FieldMatch(len(matched) / stated if stated else None, tuple(matched), tuple(missed), tuple(skipped))

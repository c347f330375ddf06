"""CLI and DEF: the parties' particulars found in the complaint's header (spec maser-mile §4.3, §7.10).

The paper's "exact match" is the reference's substring rule: a field scores when its ground-truth value occurs
verbatim in the header (the text before the first section label, so a value equal to another party's also
counts). 汉族 is not 汉, and 1970年3月17日 is neither 1970-03-17 nor 1970年03月17日. CLI is hits / fields of
the plaintiff (5 for a person, 3 for a company, by `plaintiff_type`); DEF pools hits / fields over every
defendant of the instance. One deliberate exception: an empty ground-truth value (7 in MILE) is left out of
numerator and denominator, where the reference counts it as a hit; `count_empty=True` restores that.

`normalised=True` is our extra variant, reported beside the paper's: dates compared as Y-M-D (any of 年月日,
-, /, ., with or without leading zeros), the 族 suffix optional, whitespace ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from steps.mile.parties import Party

_DATE = re.compile(r"(\d{4})\s*[年\-/.．]\s*(\d{1,2})\s*[月\-/.．]\s*(\d{1,2})\s*日?")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Match:
    hits: int
    fields: int
    missing: tuple[str, ...]  # "被告2.地址"-style names of the fields not found

    @property
    def value(self) -> float | None:
        """hits / fields, or None when no field is matchable (every ground-truth value empty)."""
        return self.hits / self.fields if self.fields else None


def _canon_dates(text: str) -> str:
    return _DATE.sub(lambda m: f"{int(m[1]):04d}-{int(m[2]):02d}-{int(m[3]):02d}", text)


def _normalise(text: str) -> str:
    return _canon_dates(_SPACE.sub("", text))


def _found(value: str, header: str, field: str, normalised: bool) -> bool:
    if not normalised:
        return value in header
    value, header = _normalise(value), _normalise(header)
    if field == "民族" and value.endswith("族"):
        return value in header or re.search(re.escape(value[:-1]) + r"(?!族)", header) is not None
    return value in header


def match_parties(parties: list[Party], header: str, *, count_empty: bool = False, normalised: bool = False) -> Match:
    """Pooled hits / fields of `parties`' matchable fields found in `header`."""
    hits = fields = 0
    missing: list[str] = []
    for party in parties:
        for field in party.matched_fields():
            value = party.fields.get(field, "").strip()
            if not value:
                if count_empty:
                    hits, fields = hits + 1, fields + 1
                continue
            fields += 1
            if _found(value, header, field, normalised):
                hits += 1
            else:
                missing.append(f"{party.role}.{field}")
    return Match(hits, fields, tuple(missing))

"""The cases to extract: each judgment parsed, with the document text the model reads and values are grounded in.

A JuDGE criminal judgment is its full text. A C3RD civil case has no full text, so the document is assembled from
its title, cause, parties and the four body sections under labelled headings, in the judgment's own order.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from steps.j1.extract.civil import parse_civil
from steps.j1.extract.criminal import parse_criminal
from steps.j1.extract.model import ParsedCase
from steps.j1.extract.text_checks import check_text

SOURCES = {"criminal": "judge", "civil": "c3rd"}


@dataclass(frozen=True)
class CaseInput:
    case_id: str
    source: str  # judge | c3rd
    source_id: str
    parsed: ParsedCase
    text: str  # the document as the model sees it (over-long texts keep their first and last halves)

    @property
    def kind(self) -> str:
        return self.parsed.kind


def criminal_inputs(criminal: pd.DataFrame) -> list[CaseInput]:
    """One input per row of a `judgments_criminal` table (case_id, source_id, full_text)."""
    out = []
    for rec in criminal.itertuples(index=False):
        parsed = parse_criminal(rec.full_text, source_id=rec.source_id)
        text, _ = check_text(rec.full_text or "")
        out.append(CaseInput(rec.case_id, SOURCES["criminal"], rec.source_id, parsed, text))
    return out


def civil_inputs(civil: pd.DataFrame) -> list[CaseInput]:
    """One input per row of a `judgments_civil` table."""
    out = []
    for row in civil.to_dict("records"):
        parsed = parse_civil(row)
        text, _ = check_text(civil_document(row))
        out.append(CaseInput(row["case_id"], SOURCES["civil"], row["source_id"], parsed, text))
    return out


def case_inputs(criminal: pd.DataFrame, civil: pd.DataFrame, limit: int | None = None) -> list[CaseInput]:
    """The cases to extract: the first `limit` judgments of each table (None: all), criminal first."""
    return criminal_inputs(criminal.head(limit) if limit else criminal) + civil_inputs(
        civil.head(limit) if limit else civil
    )


def civil_document(row: dict) -> str:
    """A C3RD case as one text: title, cause, parties, then the record, accusation, reasoning and result."""
    parties = "、".join(
        f"{p.get('name') or p.get('name_text')}（{p.get('role') or '未注明'}）" for p in _list(row, "parties")
    )
    blocks = [
        ("案件名称", row.get("title")),
        ("案由", row.get("cause")),
        ("当事人", parties),
        ("诉讼经过", row.get("record")),
        ("诉辩意见与查明事实", row.get("accusation")),
        ("本院认为", row.get("reason")),
        ("裁判结果", row.get("result")),
    ]
    return "\n".join(f"【{label}】\n{_text(value)}" for label, value in blocks if _text(value))


def _text(value: object) -> str:
    return value.replace("\\n", "\n").strip() if isinstance(value, str) else ""  # some rows keep \n as two characters


def _list(row: dict, key: str) -> list:
    value = row.get(key)
    return [] if value is None else [v for v in value if isinstance(v, dict)]

"""J1's interim tables (stage `ingest`), the judgments its environments are built from: JuDGE full-text criminal
judgments and C3RD mini sectioned civil cases; each table's loader and schema.

See `../shared/data/judgments/SOURCES.md`. C3RD files are retrieval queries whose `query_case` and 100
`ctxs` are case documents; cases recur across files, so they are de-duplicated by CaseId (identical
copies merge; differing copies are an error, never a silent choice).
"""

from __future__ import annotations

import json
from pathlib import PurePosixPath

import pandas as pd
import pandera.pandas as pa
import pyarrow
from pandera.typing import Series

from steps.j1.sql import QUERIES
from steps.registry import SourceTable
from steps.schemas.base import Strict, is_list_of, is_list_of_dicts_with
from steps.sources.errors import SourceFormatError
from steps.sources.readers import read_json, read_jsonl, require_keys
from steps.sources.types import Fetched

CIVIL_FIELDS = [
    "Case",
    "CaseCause",
    "CaseId",
    "CaseProc",
    "CaseRecord",
    "CaseType",
    "Category",
    "JudgeAccusation",
    "JudgeReason",
    "JudgeResult",
    "Keywords",
    "LegalBasis",
    "Parties",
]


def load_criminal(files: list[Fetched]) -> pd.DataFrame:
    """JuDGE JSON Lines: text_id, text (facts), la (Criminal Law article numbers), fd (full judgment)."""
    rows = []
    for f in files:
        label = str(f.local)
        for lineno, rec in read_jsonl(f.local, label):
            where = f"line {lineno}"
            require_keys(rec, ["text_id", "text", "la", "fd"], file=label, where=where)
            if not isinstance(rec["la"], list) or not all(isinstance(a, int) for a in rec["la"]):
                raise SourceFormatError(label, where, "'la' must be a list of integer article numbers")
            rows.append(
                {
                    "case_id": f"judge/{rec['text_id']}",
                    "source_id": rec["text_id"],
                    "line": lineno,
                    "full_text": rec["fd"],
                    "facts": rec["text"],
                    "articles": list(rec["la"]),
                }
            )
    return pd.DataFrame(rows)


def _doc_type(title: str) -> str:
    for suffix in ("判决书", "裁定书", "调解书", "决定书"):
        if title.endswith(suffix):
            return suffix
    return "other"


def _civil_row(case: dict, file: str) -> dict:
    return {
        "case_id": f"c3rd/{case['CaseId']}",
        "source_id": case["CaseId"],
        "title": case["Case"],
        "doc_type": _doc_type(case["Case"]),
        "cause": (case["CaseCause"] or [""])[0],
        "causes": list(case["CaseCause"]),
        "procedure": case["CaseProc"],
        "case_type": case["CaseType"],
        "categories": [
            {"cat_1": c.get("cat_1"), "cat_2": c.get("cat_2"), "case_cause": c.get("case_cause")}
            for c in case["Category"]
        ],
        "record": case["CaseRecord"],
        "accusation": case["JudgeAccusation"],
        "reason": case["JudgeReason"],
        "result": case["JudgeResult"],
        "keywords": list(case["Keywords"]),
        "legal_basis": [{"law": b.get("law"), "terms": b.get("terms")} for b in case["LegalBasis"]],
        "parties": [
            {
                "name": p.get("Name"),
                "name_text": p.get("NameText"),
                "entity": p.get("LegalEntity"),
                "role": p.get("Prop"),
            }
            for p in case["Parties"]
        ],
        "source_files": [file],
    }


def load_civil(files: list[Fetched]) -> pd.DataFrame:
    by_id: dict[str, dict] = {}
    raw_by_id: dict[str, str] = {}
    for f in sorted(files, key=lambda x: x.source.path):
        label = str(f.local)
        name = PurePosixPath(f.source.path).name
        doc = read_json(f.local, label)
        require_keys(doc, ["query_case", "ctxs"], file=label, where="top level")
        if not isinstance(doc["ctxs"], dict):
            raise SourceFormatError(label, "ctxs", 'expected an object keyed "0".."99"')
        for where, case in [("query_case", doc["query_case"])] + [(f"ctxs[{k}]", v) for k, v in doc["ctxs"].items()]:
            require_keys(case, CIVIL_FIELDS, file=label, where=where)
            key = case["CaseId"]
            canonical = json.dumps(case, ensure_ascii=False, sort_keys=True)
            if key in by_id:
                if raw_by_id[key] != canonical:
                    raise SourceFormatError(label, where, f"CaseId {key} occurs with different content in another file")
                by_id[key]["source_files"].append(name)
                continue
            by_id[key] = _civil_row(case, name)
            raw_by_id[key] = canonical
    return pd.DataFrame(list(by_id.values()))


class JudgmentsCriminal(Strict):
    case_id: Series[str] = pa.Field(unique=True)
    source_id: Series[str] = pa.Field(str_length={"min_value": 1})
    line: Series[int] = pa.Field(ge=1)
    full_text: Series[str] = pa.Field(str_length={"min_value": 100})
    facts: Series[str]
    articles: Series[object]

    @pa.check("articles", element_wise=True, error="articles must be a list of integers")
    def articles_are_ints(cls, value: object) -> bool:
        return is_list_of(value, int)


class JudgmentsCivil(Strict):
    case_id: Series[str] = pa.Field(unique=True)
    source_id: Series[str] = pa.Field(str_length={"min_value": 1})
    title: Series[str] = pa.Field(str_length={"min_value": 1})
    doc_type: Series[str]
    cause: Series[str]
    causes: Series[object]
    procedure: Series[str]
    case_type: Series[str]
    categories: Series[object]
    record: Series[str] = pa.Field(nullable=True)  # CaseRecord is null in 8 mirrored cases
    accusation: Series[str]
    reason: Series[str]
    result: Series[str]
    keywords: Series[object]
    legal_basis: Series[object]
    parties: Series[object]
    source_files: Series[object]

    @pa.check("causes", "keywords", "source_files", element_wise=True, error="must be a list of strings")
    def string_lists(cls, value: object) -> bool:
        return is_list_of(value, str)

    @pa.check("legal_basis", element_wise=True, error="legal_basis must be a list of {law, terms}")
    def legal_basis_items(cls, value: object) -> bool:
        return is_list_of_dicts_with(value, "law", "terms")

    @pa.check("parties", element_wise=True, error="parties must be a list of {name, role, ...}")
    def party_items(cls, value: object) -> bool:
        return is_list_of_dicts_with(value, "name", "role")


_str = pyarrow.string()
CIVIL_ARROW_TYPES: dict[str, pyarrow.DataType] = {
    "causes": pyarrow.list_(_str),
    "categories": pyarrow.list_(pyarrow.struct([("cat_1", _str), ("cat_2", _str), ("case_cause", _str)])),
    "keywords": pyarrow.list_(_str),
    "legal_basis": pyarrow.list_(pyarrow.struct([("law", _str), ("terms", _str)])),
    "parties": pyarrow.list_(pyarrow.struct([("name", _str), ("name_text", _str), ("entity", _str), ("role", _str)])),
    "source_files": pyarrow.list_(_str),
}

TABLES = (
    SourceTable(
        "judgments_criminal",
        "JuDGE criminal judgments",
        load_criminal,
        JudgmentsCriminal,
        {"articles": pyarrow.list_(pyarrow.int64())},
        corpus=True,
        summary=QUERIES.path("data_judgments_criminal"),
    ),
    SourceTable(
        "judgments_civil",
        "C3RD mini civil cases",
        load_civil,
        JudgmentsCivil,
        CIVIL_ARROW_TYPES,
        corpus=True,
        summary=QUERIES.path("data_judgments_civil"),
    ),
)

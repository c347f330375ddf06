"""MILE's interim table (stage `ingest`): the 693 complaint-drafting instances of MASER (spec maser-mile.md §3.1),
its loader and schema."""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
import pyarrow
from pandera.typing import Series

from steps.mile.sql import QUERIES
from steps.registry import SourceTable
from steps.schemas.base import Strict, is_list_of
from steps.sources.errors import SourceFormatError
from steps.sources.readers import read_json_array, require_keys
from steps.sources.types import Fetched

FIELDS = [
    "id",
    "case_r_f",
    "plaintiff_type",
    "plaintiff",
    "law_level",
    "personality",
    "speak_style",
    "less",
    "defendant",
    "evidence",
    "claim",
    "law_reason",
    "output",
]


def _sub(rec: dict, key: str, subkeys: list[str], *, label: str, where: str) -> dict:
    value = rec[key]
    require_keys(value, subkeys, file=label, where=f"{where}, field '{key}'")
    for sub in subkeys:
        if not isinstance(value[sub], str if key != "evidence" else list):
            raise SourceFormatError(label, f"{where}, field '{key}.{sub}'", "has the wrong type")
    return value


def load_mile(files: list[Fetched]) -> pd.DataFrame:
    """One row per instance; nested dicts are flattened into typed columns, evidence is a list of strings."""
    rows = []
    for f in files:
        label = str(f.local)
        records = read_json_array(f.local, label, of="instances")
        for i, rec in enumerate(records):
            where = f"record {i}" + (f" (id {rec.get('id')})" if isinstance(rec, dict) and "id" in rec else "")
            require_keys(rec, FIELDS, file=label, where=where)
            style = _sub(rec, "speak_style", ["tone", "content", "interaction"], label=label, where=where)
            claim = _sub(rec, "claim", ["非诉讼费用内容", "诉讼费用内容"], label=label, where=where)
            evidence = _sub(rec, "evidence", ["原告"], label=label, where=where)["原告"]
            if not all(isinstance(e, str) for e in evidence):
                raise SourceFormatError(
                    label, f"{where}, field 'evidence.原告'", "every evidence item must be a string"
                )
            rows.append(
                {
                    "instance_id": f"mile/{rec['id']}",
                    "id": rec["id"],
                    "law_reason": rec["law_reason"],
                    "plaintiff_type": rec["plaintiff_type"],
                    "plaintiff": rec["plaintiff"],
                    "defendant": rec["defendant"],
                    "less": rec["less"],
                    "case_r_f": rec["case_r_f"],
                    "claim_substantive": claim["非诉讼费用内容"],
                    "claim_costs": claim["诉讼费用内容"],
                    "evidence": list(evidence),
                    "law_level": rec["law_level"],
                    "personality": rec["personality"],
                    "speak_style_tone": style["tone"],
                    "speak_style_content": style["content"],
                    "speak_style_interaction": style["interaction"],
                    "output": rec["output"],
                }
            )
    return pd.DataFrame(rows)


class Mile(Strict):
    instance_id: Series[str] = pa.Field(unique=True)
    id: Series[int] = pa.Field(ge=1, unique=True)
    law_reason: Series[str] = pa.Field(str_length={"min_value": 1})
    plaintiff_type: Series[str] = pa.Field(isin=["personal", "company"])
    plaintiff: Series[str] = pa.Field(str_startswith="身份：原告")
    defendant: Series[str] = pa.Field(str_startswith="身份：被告")
    less: Series[str]
    case_r_f: Series[str] = pa.Field(str_length={"min_value": 1})
    claim_substantive: Series[str]
    claim_costs: Series[str] = pa.Field(str_length={"min_value": 1})
    evidence: Series[object]
    law_level: Series[str] = pa.Field(str_length={"min_value": 1})
    personality: Series[str] = pa.Field(str_length={"min_value": 1})
    speak_style_tone: Series[str] = pa.Field(str_length={"min_value": 1})
    speak_style_content: Series[str] = pa.Field(str_length={"min_value": 1})
    speak_style_interaction: Series[str] = pa.Field(str_length={"min_value": 1})
    output: Series[str] = pa.Field(str_contains="起诉状")

    @pa.check("evidence", element_wise=True, error="evidence must be a list of strings")
    def evidence_is_list(cls, value: object) -> bool:
        return is_list_of(value, str)


TABLES = (
    SourceTable(
        "mile",
        "MILE instances",
        load_mile,
        Mile,
        {"evidence": pyarrow.list_(pyarrow.string())},
        summary=QUERIES.path("data_mile"),
    ),
)

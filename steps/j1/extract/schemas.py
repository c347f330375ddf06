"""Extraction tables: one row per case (legal elements with provenance) and one row per issue."""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
import pyarrow as pa_arrow
from pandera.typing import Series

from steps.schemas.base import Strict, is_list_of, is_list_of_dicts_with

_EXTRACTION_SOURCES = ["judge", "c3rd"]
_ISSUE_STAGES = ["parser", "llm", "crosscheck"]
# the parser's issue kinds (steps.j1.extract.model.IssueKind) and the model's (steps.j1.extract.issues.LLMIssue)
_ISSUE_KINDS = [
    "missing",
    "unparsed",
    "ambiguous",
    "inferred",
    "conflict",
    "garbled",
    "truncated",
    "call_failed",
    "invalid",
    "disagreement",
    "ungrounded",
]
# the list-valued LLM fields of each kind (steps.j1.extract.answers.FIELDS)
_LIST_FIELDS = {
    "criminal": ("procurator_charges", "evidence", "pleas"),
    "civil": ("claims", "defence", "evidence", "cross_exam", "other_statements"),
}
_LIST_COLUMNS = sorted({f for fields in _LIST_FIELDS.values() for f in fields})


class Cases(Strict):
    """One row per judgment: the parser's fields, the cross-checked LLM fields, provenance and every issue.

    A list-valued LLM field is null only when the model failed on it (an issue names the field); an empty list
    means the model found nothing of the kind in the document.
    """

    case_id: Series[str] = pa.Field(unique=True)
    source: Series[str] = pa.Field(isin=_EXTRACTION_SOURCES)
    source_id: Series[str] = pa.Field(str_length={"min_value": 1})
    kind: Series[str] = pa.Field(isin=["criminal", "civil"])
    parser_version: Series[str] = pa.Field(str_startswith="parser-")
    extraction_model: Series[str] = pa.Field(str_contains="/")
    llm_fields_source: Series[str] = pa.Field(str_length={"min_value": 1})
    llm_status: Series[str] = pa.Field(isin=["ok", "partial", "failed"])
    prompt_version: Series[int] = pa.Field(ge=1)
    run_id: Series[str] = pa.Field(str_length={"min_value": 1})
    court: Series[str] = pa.Field(nullable=True)
    doc_type: Series[str] = pa.Field(nullable=True)
    case_number: Series[str] = pa.Field(nullable=True)
    procedure: Series[str] = pa.Field(isin=["first_instance", "appeal", "retrial", "other"])
    title: Series[str] = pa.Field(nullable=True)
    parties: Series[object]
    statutes: Series[object]
    charges: Series[object]
    penalty: Series[str] = pa.Field(nullable=True)
    prison_months: Series[float] = pa.Field(nullable=True, ge=0)
    probation_months: Series[float] = pa.Field(nullable=True, ge=0)
    fine_yuan: Series[float] = pa.Field(nullable=True, ge=0)
    defendants: Series[object]
    rulings: Series[object]
    cost_fee_yuan: Series[float] = pa.Field(nullable=True, ge=0)
    cost_collected_yuan: Series[float] = pa.Field(nullable=True, ge=0)
    costs_borne_by: Series[object]
    case_details: Series[str] = pa.Field(nullable=True)
    claims: Series[object] = pa.Field(nullable=True)
    defence: Series[object] = pa.Field(nullable=True)
    evidence: Series[object] = pa.Field(nullable=True)
    procurator_charges: Series[object] = pa.Field(nullable=True)
    procurator_opinion: Series[str] = pa.Field(nullable=True)
    pleas: Series[object] = pa.Field(nullable=True)
    cross_exam: Series[object] = pa.Field(nullable=True)
    other_statements: Series[object] = pa.Field(nullable=True)
    court_findings: Series[str] = pa.Field(nullable=True)
    court_reasoning: Series[str] = pa.Field(nullable=True)
    issues: Series[object]
    n_issues: Series[int] = pa.Field(ge=0)

    @pa.check("parties", element_wise=True, error="parties must be a list of {role, name, ...}")
    def party_items(cls, value: object) -> bool:
        return is_list_of_dicts_with(value, "role", "name", "entity")

    @pa.check("statutes", element_wise=True, error="statutes must be {law (official name, no 《》), article (int)}")
    def statute_items(cls, value: object) -> bool:
        return is_list_of_dicts_with(value, "law", "article") and all(
            isinstance(s["article"], int) and s["law"] and not s["law"].startswith("《") for s in value
        )

    @pa.check(
        "charges",
        "rulings",
        "claims",
        "defence",
        "procurator_charges",
        element_wise=True,
        error="must be a list of non-empty strings",
    )
    def string_lists(cls, value: object) -> bool:
        return is_list_of(value, str) and all(v for v in value)

    @pa.check("evidence", element_wise=True, error="evidence must be a list of {party, item, proves}")
    def evidence_items(cls, value: object) -> bool:
        return is_list_of_dicts_with(value, "party", "item", "proves")

    @pa.check(
        "pleas", "cross_exam", "other_statements", element_wise=True, error="must be a list of {side, party, text}"
    )
    def statement_items(cls, value: object) -> bool:
        return is_list_of_dicts_with(value, "side", "party", "text")

    @pa.check("issues", element_wise=True, error="issues must be a list of {stage, field, subject, kind, detail}")
    def issue_items(cls, value: object) -> bool:
        return is_list_of_dicts_with(value, "stage", "field", "subject", "kind", "detail")

    @pa.dataframe_check(error="n_issues must equal the number of issues listed")
    def issue_count(cls, df: pd.DataFrame) -> bool:
        return bool((df["n_issues"] == df["issues"].map(len)).all())

    @pa.dataframe_check(error="a list field of the case's kind is null but no model issue names it")
    def no_silent_gap(cls, df: pd.DataFrame) -> bool:
        for row in df[["kind", "issues", *_LIST_COLUMNS]].to_dict("records"):
            named = {i["field"] for i in row["issues"] if i["stage"] == "llm"}
            if any(row[f] is None and f not in named for f in _LIST_FIELDS[row["kind"]]):
                return False
        return True


class ExtractionIssues(Strict):
    """One row per issue of a case: a parser issue, a failed or invalid model answer, an empty mandatory field,
    a disagreement between the model and the parser, or an ungrounded value."""

    case_id: Series[str]
    source: Series[str] = pa.Field(isin=_EXTRACTION_SOURCES)
    source_id: Series[str]
    case_kind: Series[str] = pa.Field(isin=["criminal", "civil"])
    stage: Series[str] = pa.Field(isin=_ISSUE_STAGES)
    field: Series[str] = pa.Field(str_length={"min_value": 1})
    subject: Series[str] = pa.Field(nullable=True)
    kind: Series[str] = pa.Field(isin=_ISSUE_KINDS)
    detail: Series[str] = pa.Field(str_length={"min_value": 1})
    parser_value: Series[str] = pa.Field(nullable=True)  # JSON
    llm_value: Series[str] = pa.Field(nullable=True)  # JSON


_s = pa_arrow.string()
_f = pa_arrow.float64()
_i = pa_arrow.int64()
_STATEMENT = pa_arrow.list_(pa_arrow.struct([("side", _s), ("party", _s), ("text", _s)]))
CASES_ARROW_TYPES: dict[str, pa_arrow.DataType] = {
    "parties": pa_arrow.list_(
        pa_arrow.struct(
            [(n, _s) for n in ("role", "name", "entity", "gender", "ethnicity", "birth_date")]
            + [("age", _i)]
            + [(n, _s) for n in ("birthplace", "address", "domicile", "occupation", "education")]
            + [
                ("custody", pa_arrow.list_(pa_arrow.struct([("kind", _s), ("date", _s)]))),
                ("custody_status", _s),
                ("prior_records", pa_arrow.list_(_s)),
            ]
            + [(n, _s) for n in ("registered_address", "legal_representative", "affiliation", "represents")]
        )
    ),
    "statutes": pa_arrow.list_(
        pa_arrow.struct(
            [
                ("law", _s),
                ("article", _i),
                ("sub_article", _i),
                ("paragraph", _i),
                ("item", _i),
                ("source", _s),
                ("basis", pa_arrow.bool_()),
                ("inferred", pa_arrow.bool_()),
            ]
        )
    ),
    "charges": pa_arrow.list_(_s),
    "defendants": pa_arrow.list_(
        pa_arrow.struct(
            [
                ("name", _s),
                ("charges", pa_arrow.list_(_s)),
                ("penalty", _s),
                ("prison_months", _f),
                ("probation_months", _f),
                ("fine_yuan", _f),
                ("confiscation", pa_arrow.list_(_s)),
                ("combined", pa_arrow.bool_()),
            ]
        )
    ),
    "rulings": pa_arrow.list_(_s),
    "costs_borne_by": pa_arrow.list_(pa_arrow.struct([("party", _s), ("yuan", _f)])),
    "claims": pa_arrow.list_(_s),
    "defence": pa_arrow.list_(_s),
    "evidence": pa_arrow.list_(pa_arrow.struct([("party", _s), ("item", _s), ("proves", _s)])),
    "procurator_charges": pa_arrow.list_(_s),
    "pleas": _STATEMENT,
    "cross_exam": _STATEMENT,
    "other_statements": _STATEMENT,
    "issues": pa_arrow.list_(
        pa_arrow.struct([("stage", _s), ("field", _s), ("subject", _s), ("kind", _s), ("detail", _s)])
    ),
}

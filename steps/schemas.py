"""pandera schemas for every table the pipeline writes, and the Arrow types of their nested columns.

Each schema is strict (no unknown columns), coerces dtypes, and states the rules a row must satisfy.
`ARROW_TYPES` fixes the Parquet type of list / struct columns so that an empty list is still typed.
"""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
import pyarrow as pa_arrow
from pandera.typing import Series

from steps.metrics.lawbench.tasks import SETTINGS, TASK_IDS


def is_list_of(value: object, kind: type) -> bool:
    return isinstance(value, list | tuple) and all(isinstance(v, kind) for v in value)


def is_list_of_dicts_with(value: object, *keys: str) -> bool:
    return isinstance(value, list | tuple) and all(isinstance(v, dict) and set(keys) <= set(v) for v in value)


class _Strict(pa.DataFrameModel):
    class Config:
        strict = True
        coerce = True


# ---------------------------------------------------------------- LawBench


class LawBenchItems(_Strict):
    item_id: Series[str] = pa.Field(unique=True)
    setting: Series[str] = pa.Field(isin=SETTINGS)
    task: Series[str] = pa.Field(isin=TASK_IDS)
    idx: Series[int] = pa.Field(ge=0)
    instruction: Series[str]
    question: Series[str]
    answer: Series[str]


class LawBenchPredictions(_Strict):
    setting: Series[str] = pa.Field(isin=SETTINGS)
    model: Series[str] = pa.Field(str_length={"min_value": 1})
    task: Series[str] = pa.Field(isin=TASK_IDS)
    idx: Series[int] = pa.Field(ge=0)
    prompt: Series[str]
    prompt_role: Series[str] = pa.Field(nullable=True)
    prediction: Series[str]
    reference: Series[str]

    @pa.dataframe_check(error="(setting, model, task, idx) must be unique")
    def unique_key(cls, df: pd.DataFrame) -> bool:
        return not df.duplicated(["setting", "model", "task", "idx"]).any()


class LawBenchPublished(_Strict):
    setting: Series[str] = pa.Field(isin=SETTINGS)
    model: Series[str] = pa.Field(str_length={"min_value": 1})
    task: Series[str] = pa.Field(isin=TASK_IDS)
    score: Series[float] = pa.Field(ge=-1.0, le=1.0)
    abstention_rate: Series[float] = pa.Field(ge=0.0, le=1.0)

    @pa.dataframe_check(error="(setting, model, task) must be unique")
    def unique_key(cls, df: pd.DataFrame) -> bool:
        return not df.duplicated(["setting", "model", "task"]).any()


class LawBenchRunPredictions(_Strict):
    """An agent's LawBench predictions: the published layout plus the call key and any failure."""

    setting: Series[str] = pa.Field(isin=SETTINGS)
    model: Series[str]
    task: Series[str] = pa.Field(isin=TASK_IDS)
    idx: Series[int] = pa.Field(ge=0)
    prompt: Series[str]
    prompt_role: Series[str] = pa.Field(nullable=True)
    prediction: Series[str] = pa.Field(nullable=True)
    reference: Series[str]
    call_key: Series[str]
    failure_kind: Series[str] = pa.Field(nullable=True)

    @pa.dataframe_check(error="a row has a prediction and a failure, or neither")
    def prediction_xor_failure(cls, df: pd.DataFrame) -> bool:
        return bool((df.prediction.isna() == df.failure_kind.notna()).all())


class LawBenchScores(_Strict):
    """One row per (setting, agent, task): our score, abstention rate and counts."""

    setting: Series[str] = pa.Field(isin=SETTINGS)
    agent: Series[str]
    task: Series[str] = pa.Field(isin=TASK_IDS)
    score: Series[float] = pa.Field(nullable=True, ge=-1.0, le=1.0)
    abstention_rate: Series[float] = pa.Field(nullable=True, ge=0.0, le=1.0)
    n: Series[int] = pa.Field(ge=0)
    n_failed: Series[int] = pa.Field(ge=0)
    proxy: Series[bool]
    run_id: Series[str]


# ---------------------------------------------------------------- MILE


class Mile(_Strict):
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


# ---------------------------------------------------------------- UCL-Bench


class Ucl(_Strict):
    item_id: Series[str] = pa.Field(unique=True)
    task: Series[str] = pa.Field(str_length={"min_value": 1})
    id: Series[int] = pa.Field(ge=0)
    information: Series[str]
    needs: Series[str] = pa.Field(str_length={"min_value": 1})
    evaluation_hints: Series[str]
    hint_answer: Series[str] = pa.Field(nullable=True)
    hint_must: Series[str] = pa.Field(nullable=True)
    hint_should: Series[str] = pa.Field(nullable=True)
    hint_encouraged: Series[str] = pa.Field(nullable=True)
    hint_forbidden: Series[str] = pa.Field(nullable=True)
    role_prompt: Series[str] = pa.Field(str_length={"min_value": 1})
    model_prompt: Series[str] = pa.Field(str_length={"min_value": 1})
    evaluation_prompt: Series[str] = pa.Field(str_contains="{dialogue1}")
    role_template: Series[str]
    model_template: Series[str]


# ---------------------------------------------------------------- PLawBench


class PlawCaseAnalysis(_Strict):
    item_id: Series[str] = pa.Field(unique=True)
    line: Series[int] = pa.Field(ge=0)
    label: Series[str] = pa.Field(str_length={"min_value": 1})
    context: Series[str] = pa.Field(str_length={"min_value": 1})
    question: Series[str] = pa.Field(str_length={"min_value": 1})
    rubrics: Series[object]
    max_points: Series[int] = pa.Field(gt=0)

    @pa.check("rubrics", element_wise=True, error="rubrics must be a list of {tag, criterion, points}")
    def rubrics_are_items(cls, value: object) -> bool:
        return bool(value) and is_list_of_dicts_with(value, "tag", "criterion", "points")


class PlawConsultation(_Strict):
    item_id: Series[str] = pa.Field(unique=True)
    id: Series[int] = pa.Field(ge=1)
    conversation: Series[str] = pa.Field(str_length={"min_value": 1})
    rubric: Series[str] = pa.Field(str_length={"min_value": 1})
    declared_total: Series[float] = pa.Field(nullable=True, gt=0)


class PlawDrafting(_Strict):
    item_id: Series[str] = pa.Field(unique=True)
    side: Series[str] = pa.Field(isin=["plaintiff", "defendant"])
    id: Series[int] = pa.Field(ge=1)
    tag: Series[str] = pa.Field(str_length={"min_value": 1})
    conversation: Series[str] = pa.Field(str_length={"min_value": 1})
    rubric: Series[str] = pa.Field(str_length={"min_value": 1})
    max_points: Series[float] = pa.Field(gt=0)
    declared_total: Series[float] = pa.Field(nullable=True, gt=0)


# ---------------------------------------------------------------- Judgments


class JudgmentsCriminal(_Strict):
    case_id: Series[str] = pa.Field(unique=True)
    source_id: Series[str] = pa.Field(str_length={"min_value": 1})
    line: Series[int] = pa.Field(ge=1)
    full_text: Series[str] = pa.Field(str_length={"min_value": 100})
    facts: Series[str]
    articles: Series[object]

    @pa.check("articles", element_wise=True, error="articles must be a list of integers")
    def articles_are_ints(cls, value: object) -> bool:
        return is_list_of(value, int)


class JudgmentsCivil(_Strict):
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


# ---------------------------------------------------------------- model usage


class ModelUsage(_Strict):
    """One row per model call through the door: hits, misses and failures."""

    run_id: Series[str]
    purpose: Series[str] = pa.Field(str_length={"min_value": 1})
    model_name: Series[str]
    model: Series[str] = pa.Field(str_contains="/")
    call_key: Series[str] = pa.Field(str_length={"min_value": 64, "max_value": 64})
    prompt_tokens: Series[int] = pa.Field(ge=0)
    completion_tokens: Series[int] = pa.Field(ge=0)
    cost_usd: Series[float] = pa.Field(nullable=True, ge=0)
    latency_s: Series[float] = pa.Field(ge=0)
    attempts: Series[int] = pa.Field(ge=0)
    cache_hit: Series[bool]
    failure_kind: Series[str] = pa.Field(
        nullable=True,
        isin=["rate_limit", "server", "timeout", "bad_request", "auth", "content_filter", "parse"],
    )
    failure_message: Series[str] = pa.Field(nullable=True)
    metadata: Series[str]  # JSON object: instance id, scenario, role, task, setting


# ---------------------------------------------------------------- Extraction (judgments → legal elements)

_EXTRACTION_SOURCES = ["judge", "c3rd"]
_ISSUE_STAGES = ["parser", "llm", "crosscheck"]
# the parser's issue kinds (steps.extract.model.IssueKind) and the model's (steps.extract.issues.LLMIssue)
_ISSUE_KINDS = ["missing", "unparsed", "ambiguous", "inferred", "conflict", "garbled", "truncated",
                "call_failed", "invalid", "disagreement", "ungrounded"]  # fmt: skip
# the list-valued LLM fields of each kind (steps.extract.answers.FIELDS)
_LIST_FIELDS = {"criminal": ("procurator_charges", "evidence", "pleas"),
                "civil": ("claims", "defence", "evidence", "cross_exam", "other_statements")}  # fmt: skip
_LIST_COLUMNS = sorted({f for fields in _LIST_FIELDS.values() for f in fields})


class Cases(_Strict):
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

    @pa.check("charges", "rulings", "claims", "defence", "procurator_charges", element_wise=True,
              error="must be a list of non-empty strings")  # fmt: skip
    def string_lists(cls, value: object) -> bool:
        return is_list_of(value, str) and all(v for v in value)

    @pa.check("evidence", element_wise=True, error="evidence must be a list of {party, item, proves}")
    def evidence_items(cls, value: object) -> bool:
        return is_list_of_dicts_with(value, "party", "item", "proves")

    @pa.check("pleas", "cross_exam", "other_statements", element_wise=True,
              error="must be a list of {side, party, text}")  # fmt: skip
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


class ExtractionIssues(_Strict):
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
    "parties": pa_arrow.list_(pa_arrow.struct(
        [(n, _s) for n in ("role", "name", "entity", "gender", "ethnicity", "birth_date")] + [("age", _i)]
        + [(n, _s) for n in ("birthplace", "address", "domicile", "occupation", "education")]
        + [("custody", pa_arrow.list_(pa_arrow.struct([("kind", _s), ("date", _s)]))), ("custody_status", _s),
           ("prior_records", pa_arrow.list_(_s))]
        + [(n, _s) for n in ("registered_address", "legal_representative", "affiliation", "represents")]
    )),
    "statutes": pa_arrow.list_(pa_arrow.struct(
        [("law", _s), ("article", _i), ("sub_article", _i), ("paragraph", _i), ("item", _i), ("source", _s),
         ("basis", pa_arrow.bool_()), ("inferred", pa_arrow.bool_())]
    )),
    "charges": pa_arrow.list_(_s),
    "defendants": pa_arrow.list_(pa_arrow.struct(
        [("name", _s), ("charges", pa_arrow.list_(_s)), ("penalty", _s), ("prison_months", _f),
         ("probation_months", _f), ("fine_yuan", _f), ("confiscation", pa_arrow.list_(_s)),
         ("combined", pa_arrow.bool_())]
    )),
    "rulings": pa_arrow.list_(_s),
    "costs_borne_by": pa_arrow.list_(pa_arrow.struct([("party", _s), ("yuan", _f)])),
    "claims": pa_arrow.list_(_s),
    "defence": pa_arrow.list_(_s),
    "evidence": pa_arrow.list_(pa_arrow.struct([("party", _s), ("item", _s), ("proves", _s)])),
    "procurator_charges": pa_arrow.list_(_s),
    "pleas": _STATEMENT,
    "cross_exam": _STATEMENT,
    "other_statements": _STATEMENT,
    "issues": pa_arrow.list_(pa_arrow.struct(
        [("stage", _s), ("field", _s), ("subject", _s), ("kind", _s), ("detail", _s)]
    )),
}  # fmt: skip


# ---------------------------------------------------------------- registry

_str = pa_arrow.string()
ARROW_TYPES: dict[str, dict[str, pa_arrow.DataType]] = {
    "mile": {"evidence": pa_arrow.list_(_str)},
    "plawbench_case_analysis": {
        "rubrics": pa_arrow.list_(pa_arrow.struct([("tag", _str), ("criterion", _str), ("points", pa_arrow.int64())]))
    },
    "judgments_criminal": {"articles": pa_arrow.list_(pa_arrow.int64())},
    "cases": CASES_ARROW_TYPES,
    "judgments_civil": {
        "causes": pa_arrow.list_(_str),
        "categories": pa_arrow.list_(pa_arrow.struct([("cat_1", _str), ("cat_2", _str), ("case_cause", _str)])),
        "keywords": pa_arrow.list_(_str),
        "legal_basis": pa_arrow.list_(pa_arrow.struct([("law", _str), ("terms", _str)])),
        "parties": pa_arrow.list_(
            pa_arrow.struct([("name", _str), ("name_text", _str), ("entity", _str), ("role", _str)])
        ),
        "source_files": pa_arrow.list_(_str),
    },
}

SCHEMAS: dict[str, type[pa.DataFrameModel]] = {
    "lawbench_items": LawBenchItems,
    "lawbench_predictions": LawBenchPredictions,
    "lawbench_published": LawBenchPublished,
    "mile": Mile,
    "ucl": Ucl,
    "plawbench_case_analysis": PlawCaseAnalysis,
    "plawbench_consultation": PlawConsultation,
    "plawbench_drafting": PlawDrafting,
    "judgments_criminal": JudgmentsCriminal,
    "judgments_civil": JudgmentsCivil,
}


class TableError(Exception):
    """A table breaks its schema; the message names the table, the first failing row and the rule."""


def _id_column(df: pd.DataFrame) -> str | None:
    return next((c for c in ("item_id", "instance_id", "case_id") if c in df.columns), None)


def validate(df: pd.DataFrame, schema: type[pa.DataFrameModel], *, table: str, origin: str = "") -> pd.DataFrame:
    """Validate lazily and raise one `TableError` line naming the first failure and the count."""
    try:
        return schema.validate(df, lazy=True)
    except pa.errors.SchemaErrors as e:
        cases = e.failure_cases
        first = cases.iloc[0]
        idx = first.get("index")
        where = "table"
        if idx is not None and not pd.isna(idx) and int(idx) in df.index:
            id_col = _id_column(df)
            where = f"row {int(idx)}" + (f" ({id_col}={df.loc[int(idx), id_col]})" if id_col else "")
        column = first.get("column")
        rule = f"column '{column}' fails {first['check']}" if column and not pd.isna(column) else str(first["check"])
        more = f" (and {len(cases) - 1} more failure(s))" if len(cases) > 1 else ""
        src = f" from {origin}" if origin else ""
        raise TableError(f"{table}{src}: {where}: {rule}; value {first['failure_case']!r}{more}") from None

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


# ---------------------------------------------------------------- registry

_str = pa_arrow.string()
ARROW_TYPES: dict[str, dict[str, pa_arrow.DataType]] = {
    "mile": {"evidence": pa_arrow.list_(_str)},
    "plawbench_case_analysis": {
        "rubrics": pa_arrow.list_(pa_arrow.struct([("tag", _str), ("criterion", _str), ("points", pa_arrow.int64())]))
    },
    "judgments_criminal": {"articles": pa_arrow.list_(pa_arrow.int64())},
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

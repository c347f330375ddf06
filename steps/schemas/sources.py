"""The interim tables written by `ingest`: one schema per upstream dataset, with their nested Arrow types."""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
import pyarrow as pa_arrow
from pandera.typing import Series

from steps.metrics.lawbench.tasks import SETTINGS, TASK_IDS
from steps.schemas.base import Strict, is_list_of, is_list_of_dicts_with

# ---------------------------------------------------------------- LawBench


class LawBenchItems(Strict):
    item_id: Series[str] = pa.Field(unique=True)
    setting: Series[str] = pa.Field(isin=SETTINGS)
    task: Series[str] = pa.Field(isin=TASK_IDS)
    idx: Series[int] = pa.Field(ge=0)
    instruction: Series[str]
    question: Series[str]
    answer: Series[str]


class LawBenchPredictions(Strict):
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


class LawBenchPublished(Strict):
    setting: Series[str] = pa.Field(isin=SETTINGS)
    model: Series[str] = pa.Field(str_length={"min_value": 1})
    task: Series[str] = pa.Field(isin=TASK_IDS)
    score: Series[float] = pa.Field(ge=-1.0, le=1.0)
    abstention_rate: Series[float] = pa.Field(ge=0.0, le=1.0)

    @pa.dataframe_check(error="(setting, model, task) must be unique")
    def unique_key(cls, df: pd.DataFrame) -> bool:
        return not df.duplicated(["setting", "model", "task"]).any()


class LawBenchCilin(Strict):
    """Task 2-1's semantic classes (cilin.txt): the code of every word, by source line."""

    line: Series[int] = pa.Field(ge=1)
    code: Series[str] = pa.Field(str_matches=r"^[A-L][a-z]\d\d[A-Z]\d\d[=#@]$")
    word: Series[str] = pa.Field(str_length={"min_value": 1})


class LawBenchConfusions(Strict):
    """Task 2-1's confusion set (confusion_dict.txt): characters confusable with `char`, by source line."""

    line: Series[int] = pa.Field(ge=1)
    char: Series[str] = pa.Field(str_length={"max_value": 1})  # "" for upstream's line that starts with a space
    confusable: Series[str] = pa.Field(str_length={"min_value": 1})


# ---------------------------------------------------------------- MILE


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


# ---------------------------------------------------------------- UCL-Bench


class Ucl(Strict):
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


class PlawCaseAnalysis(Strict):
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


class PlawConsultation(Strict):
    item_id: Series[str] = pa.Field(unique=True)
    id: Series[int] = pa.Field(ge=1)
    conversation: Series[str] = pa.Field(str_length={"min_value": 1})
    rubric: Series[str] = pa.Field(str_length={"min_value": 1})
    declared_total: Series[float] = pa.Field(nullable=True, gt=0)


class PlawDrafting(Strict):
    item_id: Series[str] = pa.Field(unique=True)
    side: Series[str] = pa.Field(isin=["plaintiff", "defendant"])
    id: Series[int] = pa.Field(ge=1)
    tag: Series[str] = pa.Field(str_length={"min_value": 1})
    conversation: Series[str] = pa.Field(str_length={"min_value": 1})
    rubric: Series[str] = pa.Field(str_length={"min_value": 1})
    max_points: Series[float] = pa.Field(gt=0)
    declared_total: Series[float] = pa.Field(nullable=True, gt=0)


# ---------------------------------------------------------------- Judgments


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


# ---------------------------------------------------------------- registry

_str = pa_arrow.string()
SOURCE_ARROW_TYPES: dict[str, dict[str, pa_arrow.DataType]] = {
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

# The tables of stage `ingest`, by name.
SCHEMAS: dict[str, type[pa.DataFrameModel]] = {
    "lawbench_items": LawBenchItems,
    "lawbench_predictions": LawBenchPredictions,
    "lawbench_published": LawBenchPublished,
    "lawbench_cilin": LawBenchCilin,
    "lawbench_confusions": LawBenchConfusions,
    "mile": Mile,
    "ucl": Ucl,
    "plawbench_case_analysis": PlawCaseAnalysis,
    "plawbench_consultation": PlawConsultation,
    "plawbench_drafting": PlawDrafting,
    "judgments_criminal": JudgmentsCriminal,
    "judgments_civil": JudgmentsCivil,
}

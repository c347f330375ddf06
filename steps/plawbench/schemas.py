"""PLawBench tables: tasks, rubric items and parse issues (stage plawbench_rubrics); an agent's responses
(plawbench_predict; the turns and dialogues of its multi-turn consultations are `steps.schemas.runs`'); judgements,
scores and item scores (plawbench_judge)."""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

from steps.llm.results import EMPTY_ANSWER
from steps.schemas.base import Strict
from steps.schemas.judged import Judged

CATEGORIES = ["consultation", "case_analysis", "drafting"]
KINDS = ["section", "award", "deduction", "fail", "alternative", "optional", "level"]
VARIANTS = ["single", "multiturn"]
DIMENSIONS = ["total", "conclusion", "facts", "reasoning", "statute", "paper_penalty"]  # paper_penalty: opt-in T1
JUDGE_FAILURES = ["call_failed", "unparsable", "out_of_range", "agent_call_failed"]


class PlawTasks(Strict):
    item_id: Series[str] = pa.Field(unique=True)
    category: Series[str] = pa.Field(isin=CATEGORIES)
    scenario: Series[str] = pa.Field(str_length={"min_value": 1})
    context: Series[str]
    query: Series[str] = pa.Field(str_length={"min_value": 1})
    max_points: Series[float] = pa.Field(gt=0)
    n_units: Series[int] = pa.Field(ge=0)
    n_rows: Series[int] = pa.Field(ge=0)
    seq_class: Series[str]
    level: Series[str]
    document: Series[str]


class PlawRubricItems(Strict):
    item_id: Series[str]
    category: Series[str] = pa.Field(isin=CATEGORIES)
    rubric_id: Series[str] = pa.Field(str_length={"min_value": 1})
    parent_id: Series[str] = pa.Field(nullable=True)
    order: Series[int] = pa.Field(ge=0)
    kind: Series[str] = pa.Field(isin=KINDS)
    dimension: Series[str]
    text: Series[str]
    points: Series[float] = pa.Field(nullable=True, ge=0)
    max_times: Series[float] = pa.Field(nullable=True, ge=1)
    judged: Series[bool]
    award_text: Series[str]

    @pa.dataframe_check(error="(item_id, rubric_id) must be unique")
    def unique_ids(cls, df: pd.DataFrame) -> bool:
        return not df.duplicated(["item_id", "rubric_id"]).any()

    @pa.dataframe_check(error="a judged award item needs points > 0")
    def judged_awards_have_points(cls, df: pd.DataFrame) -> bool:
        awards = df[df.judged & (df.kind == "award")]
        return bool((awards.points.isna() | (awards.points > 0)).all())


class PlawParseIssues(Strict):
    item_id: Series[str]
    category: Series[str] = pa.Field(isin=CATEGORIES)
    rubric_id: Series[str]
    issue: Series[str] = pa.Field(str_length={"min_value": 1})
    detail: Series[str]
    effect: Series[str]


class PlawResponses(Strict):
    agent: Series[str]
    run_id: Series[str]
    item_id: Series[str]
    category: Series[str] = pa.Field(isin=CATEGORIES)
    scenario: Series[str]
    variant: Series[str] = pa.Field(isin=VARIANTS)
    prompt: Series[str]
    response: Series[str] = pa.Field(nullable=True)
    failure: Series[str] = pa.Field(nullable=True)
    call_key: Series[str]
    truncated: Series[bool]  # a reply of the agent was cut at max_tokens (kept and judged as it is)
    turns: Series[int] = pa.Field(ge=0)
    ended_by: Series[str]
    # `empty_answer`: nothing left once the reasoning trace is removed (response ""): scored 0 by rule, never judged
    outcome: Series[str] = pa.Field(nullable=True, isin=[EMPTY_ANSWER])
    reasoning: Series[str] = pa.Field(nullable=True)  # the single-turn reply's reasoning trace, never judged

    @pa.dataframe_check(error="a row has a response and a failure, or neither")
    def response_xor_failure(cls, df: pd.DataFrame) -> bool:
        return bool((df.response.isna() == df.failure.notna()).all())

    @pa.dataframe_check(error="(item_id, variant) must be unique")
    def unique_tasks(cls, df: pd.DataFrame) -> bool:
        return not df.duplicated(["item_id", "variant"]).any()


class PlawJudgements(Judged):
    """One row per judged response (and per failed agent call, with failure agent_call_failed and no judge)."""

    agent: Series[str]
    item_id: Series[str]
    category: Series[str] = pa.Field(isin=CATEGORIES)
    scenario: Series[str]
    variant: Series[str] = pa.Field(isin=VARIANTS)
    judge_run: Series[str]
    failure: Series[str] = pa.Field(nullable=True, isin=JUDGE_FAILURES)
    awarded: Series[float] = pa.Field(nullable=True, ge=0)
    max_points: Series[float] = pa.Field(gt=0)
    clamped: Series[int] = pa.Field(ge=0)
    fails_triggered: Series[int] = pa.Field(ge=0)
    penalty_points: Series[float] = pa.Field(ge=0)
    questions: Series[float] = pa.Field(nullable=True, ge=0)
    questions_truncated: Series[bool]
    raw: Series[str]
    evidence: Series[str]


class PlawScores(Strict):
    """One row per (response, dimension): points awarded of the maximum; no score when the judgement failed."""

    agent: Series[str]
    item_id: Series[str]
    category: Series[str] = pa.Field(isin=CATEGORIES)
    scenario: Series[str]
    variant: Series[str] = pa.Field(isin=VARIANTS)
    dimension: Series[str] = pa.Field(isin=DIMENSIONS)
    awarded: Series[float] = pa.Field(nullable=True, ge=0)
    max_points: Series[float] = pa.Field(gt=0)
    failure: Series[str] = pa.Field(nullable=True)

    @pa.dataframe_check(error="awarded exceeds the maximum")
    def within_max(cls, df: pd.DataFrame) -> bool:
        return bool((df.awarded.isna() | (df.awarded <= df.max_points + 1e-9)).all())


class PlawItemScores(Strict):
    agent: Series[str]
    item_id: Series[str]
    category: Series[str] = pa.Field(isin=CATEGORIES)
    scenario: Series[str]
    variant: Series[str] = pa.Field(isin=VARIANTS)
    rubric_id: Series[str]
    group: Series[str]
    points: Series[float] = pa.Field(gt=0)
    given: Series[float] = pa.Field(ge=0)
    awarded: Series[float] = pa.Field(ge=0)
    failed: Series[bool]
    error_label: Series[str] = pa.Field(nullable=True)
    justification: Series[str]

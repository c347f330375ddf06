"""MILE run tables: the turn records, one row per dialogue, and one row per score."""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

from steps.schemas.base import Strict
from steps.schemas.judged import Judged
from steps.schemas.runs import END_REASONS as ENGINE_END_REASONS

TURN_KINDS = ["utterance", "check", "draft", "review", "deliverable"]
END_REASONS = [*ENGINE_END_REASONS, "unknown"]
STAGES = ["goal", "interaction", "consistency"]
METRICS = ["CLI", "DEF", "CLI-norm", "DEF-norm", "F&R", "CLA", "EVID", "STA", "PROF", "INT", "LOGI", "CONS"]
FAILURES = ["call_failed", "unparsable", "out_of_range", "dialogue_failed", "no_fields"]


class MileTurns(Strict):
    """Every record of every dialogue: speech, supervisor checks, drafts sent back, reviews, the complaint."""

    run_id: Series[str]
    agent: Series[str]
    instance_id: Series[str] = pa.Field(str_startswith="mile/")
    turn_index: Series[int] = pa.Field(ge=0)
    turn: Series[int] = pa.Field(ge=0)  # the paper's turn: 0 greetings, 1..T, T+1 the complaint
    exchange: Series[int] = pa.Field(ge=1)
    speaker: Series[str] = pa.Field(isin=["client", "lawyer", "supervisor"])
    addressee: Series[str] = pa.Field(nullable=True)
    kind: Series[str] = pa.Field(isin=TURN_KINDS)
    text: Series[str]
    model: Series[str]
    call_key: Series[str]
    prompt_tokens: Series[int] = pa.Field(ge=0)
    completion_tokens: Series[int] = pa.Field(ge=0)
    failure: Series[str] = pa.Field(nullable=True)
    revision: Series[int] = pa.Field(ge=0)
    data: Series[str]  # JSON object: stage, accepted, blurred, style …

    @pa.dataframe_check(error="(instance_id, turn_index) is not unique")
    def unique_turns(cls, df: pd.DataFrame) -> bool:
        return not df.duplicated(["instance_id", "turn_index"]).any()


class MileDialogues(Strict):
    """One row per simulated dialogue (dialogues.parquet)."""

    run_id: Series[str]
    agent: Series[str]
    instance_id: Series[str] = pa.Field(unique=True, str_startswith="mile/")
    law_reason: Series[str]
    plaintiff_type: Series[str] = pa.Field(isin=["personal", "company"])
    ended_by: Series[str] = pa.Field(isin=END_REASONS)
    turns: Series[int] = pa.Field(ge=0)
    complaint: Series[str] = pa.Field(nullable=True)
    failure: Series[str] = pa.Field(nullable=True)
    client_revisions: Series[int] = pa.Field(ge=0)
    lawyer_revisions: Series[int] = pa.Field(ge=0)
    blurred: Series[int] = pa.Field(ge=0)
    unsupervised: Series[int] = pa.Field(ge=0)
    persona: Series[str]  # JSON object
    lawyer_view: Series[str]  # JSON list of chat messages

    @pa.dataframe_check(error="a dialogue that ended in a failed call has a complaint")
    def failed_have_no_complaint(cls, df: pd.DataFrame) -> bool:
        return bool(df[df.ended_by == "call_failed"].complaint.isna().all())


class MileScores(Judged):
    """One row per (dialogue, metric[, turn]): a value, or a failure that is counted and never scored."""

    run_id: Series[str]
    agent: Series[str]
    instance_id: Series[str] = pa.Field(str_startswith="mile/")
    stage: Series[str] = pa.Field(isin=STAGES)
    metric: Series[str] = pa.Field(isin=METRICS)
    turn: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=1)
    grade: Series[float] = pa.Field(nullable=True, ge=1.0, le=10.0)
    scaled: Series[float] = pa.Field(nullable=True, ge=0.0, le=100.0)
    failure: Series[str] = pa.Field(nullable=True, isin=FAILURES)
    reason: Series[str]
    detail: Series[str]

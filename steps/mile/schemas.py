"""MILE run tables: one row per dialogue (the base of `steps.schemas.runs` extended) and one row per score."""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

from steps.schemas.judged import Judged
from steps.schemas.runs import Dialogues

STAGES = ["goal", "interaction", "consistency"]
METRICS = ["CLI", "DEF", "CLI-norm", "DEF-norm", "F&R", "CLA", "EVID", "STA", "PROF", "INT", "LOGI", "CONS"]
FAILURES = ["call_failed", "unparsable", "out_of_range", "dialogue_failed", "no_fields"]


class MileDialogues(Dialogues):
    """One row per simulated dialogue (dialogues.parquet): the base columns (the deliverable is the complaint,
    "" when the lawyer said nothing) and what the evaluation and the SFT export need."""

    instance_id: Series[str] = pa.Field(unique=True, str_startswith="mile/")
    law_reason: Series[str]
    plaintiff_type: Series[str] = pa.Field(isin=["personal", "company"])
    turns: Series[int] = pa.Field(ge=0)  # the paper's T: client–lawyer turns after the greetings
    client_revisions: Series[int] = pa.Field(ge=0)
    lawyer_revisions: Series[int] = pa.Field(ge=0)
    blurred: Series[int] = pa.Field(ge=0)
    unsupervised: Series[int] = pa.Field(ge=0)
    persona: Series[str]  # JSON object
    lawyer_view: Series[str]  # JSON list of chat messages

    @pa.dataframe_check(error="a dialogue that ended in a failed call has a complaint")
    def failed_have_no_complaint(cls, df: pd.DataFrame) -> bool:
        return bool(df[df.ended_by == "call_failed"].deliverable.isna().all())


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

"""UCL-Bench run tables: the dialogues of a run (an agent or the reference; its turns are `steps.schemas.runs.Turns`),
pairwise verdicts against the reference, and pointwise hint scores."""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

from steps.schemas.judged import Judged
from steps.schemas.runs import Dialogues

_JUDGE_FAILURES = ["call_failed", "unparsable", "out_of_range"]
_EXCLUSIONS = ["agent_failed", "agent_missing", "reference_failed", "reference_missing"]


class UclDialogues(Dialogues):
    """One row per dialogue of a run (an agent's or the reference's): the base columns, its rounds (assistant
    replies) and the transcript the judge reads."""

    task: Series[str]
    rounds: Series[int] = pa.Field(ge=0)
    transcript: Series[str]
    first_query: Series[str]
    closing_extra: Series[str] = pa.Field(nullable=True)

    @pa.dataframe_check(error="a finished dialogue has no assistant reply or an empty user turn")
    def finished_dialogues_were_answered(cls, df: pd.DataFrame) -> bool:
        done = df[df.failure.isna()]
        # an assistant whose first request outgrew its context never replied: judged as it stands (its limit)
        answered = (done.rounds >= 1) | (done.ended_by == "context_exceeded")
        return bool(answered.all() and (done.first_query.str.strip() != "").all())


class UclVerdicts(Judged):
    """One row per (item, order) of the pairwise judging against the reference: `value` is the candidate's
    points in that order (win 1, tie 0.5, lose 0), `outcome` the candidate's, `verdict` the [[d]] that counted."""

    run_id: Series[str]
    reference_run_id: Series[str]
    agent: Series[str]
    reference: Series[str]
    item_id: Series[str]
    task: Series[str]
    order: Series[str] = pa.Field(isin=["candidate_first", "reference_first"])
    verdict: Series[pd.Int64Dtype] = pa.Field(nullable=True, isin=[1, 2, 3])
    outcome: Series[str] = pa.Field(nullable=True, isin=["win", "tie", "lose"])
    value: Series[float] = pa.Field(nullable=True, isin=[0.0, 0.5, 1.0])
    failure: Series[str] = pa.Field(nullable=True, isin=_JUDGE_FAILURES + _EXCLUSIONS)
    raw: Series[str]

    @pa.dataframe_check(error="(item_id, order) is not unique")
    def key_unique(cls, df: pd.DataFrame) -> bool:
        return not df.duplicated(["item_id", "order"]).any()


class UclHintScores(Judged):
    """One row per dialogue of the pointwise hint judge [ours]: value in [0, 1] or the failure that excludes it."""

    run_id: Series[str]
    agent: Series[str]
    item_id: Series[str] = pa.Field(unique=True)
    task: Series[str]
    failure: Series[str] = pa.Field(nullable=True, isin=_JUDGE_FAILURES + _EXCLUSIONS)
    hint_free: Series[bool]
    items: Series[int] = pa.Field(ge=0)
    met: Series[int] = pa.Field(ge=0)
    partial: Series[int] = pa.Field(ge=0)
    forbidden_mentioned: Series[int] = pa.Field(ge=0)
    holistic: Series[float] = pa.Field(nullable=True, ge=1.0, le=10.0)
    raw: Series[str]


class UclVerdictsPanel(UclVerdicts):
    """Every member's verdicts of a panel of judges (verdicts_panel.parquet): one row per (item, order, judge)."""

    @pa.dataframe_check(error="(item_id, order, judge) is not unique")
    def key_unique(cls, df: pd.DataFrame) -> bool:
        return not df.duplicated(["item_id", "order", "judge"]).any()


class UclHintScoresPanel(UclHintScores):
    """Every member's hint scores of a panel of judges (hint_scores_panel.parquet): one row per (item, judge)."""

    item_id: Series[str]

    @pa.dataframe_check(error="(item_id, judge) is not unique")
    def key_unique(cls, df: pd.DataFrame) -> bool:
        return not df.duplicated(["item_id", "judge"]).any()

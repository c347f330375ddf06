"""UCL-Bench run tables: turns and dialogues of a run (an agent or the reference), pairwise verdicts against
the reference, and pointwise hint scores."""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

from steps.schemas.base import Strict
from steps.schemas.judged import Judged
from steps.schemas.runs import END_REASONS

_ENDINGS = END_REASONS  # the engine's; empty_reply: the assistant said nothing
_JUDGE_FAILURES = ["call_failed", "unparsable", "out_of_range"]
_EXCLUSIONS = ["agent_failed", "agent_missing", "reference_failed", "reference_missing"]


class UclTurns(Strict):
    """One row per turn of every dialogue, keyed by (item_id, turn_index); failed calls are rows too."""

    run_id: Series[str]
    agent: Series[str]
    item_id: Series[str]
    turn_index: Series[int] = pa.Field(ge=0)
    exchange: Series[int] = pa.Field(ge=0)
    speaker: Series[str] = pa.Field(isin=["user", "assistant"])
    kind: Series[str]
    text: Series[str]
    model: Series[str]
    call_key: Series[str]
    prompt_tokens: Series[int] = pa.Field(ge=0)
    completion_tokens: Series[int] = pa.Field(ge=0)
    failure: Series[str] = pa.Field(nullable=True)

    @pa.dataframe_check(error="(item_id, turn_index) is not unique")
    def turn_key_unique(cls, df: pd.DataFrame) -> bool:
        return not df.duplicated(["item_id", "turn_index"]).any()

    @pa.dataframe_check(error="a failed call left text in its turn")
    def failed_turns_are_empty(cls, df: pd.DataFrame) -> bool:
        return bool((df.text[df.failure.notna()] == "").all())


class UclDialogues(Strict):
    """One row per dialogue: how it ended, its rounds and the transcript the judge reads."""

    run_id: Series[str]
    agent: Series[str]
    item_id: Series[str] = pa.Field(unique=True)
    task: Series[str]
    ended_by: Series[str] = pa.Field(isin=_ENDINGS)
    rounds: Series[int] = pa.Field(ge=0)
    utterances: Series[int] = pa.Field(ge=0)
    transcript: Series[str]
    first_query: Series[str]
    closing_extra: Series[str] = pa.Field(nullable=True)
    failure: Series[str] = pa.Field(nullable=True)

    @pa.dataframe_check(error="a dialogue failed without ending in call_failed, or the reverse")
    def failure_iff_call_failed(cls, df: pd.DataFrame) -> bool:
        return bool((df.failure.notna() == (df.ended_by == "call_failed")).all())

    @pa.dataframe_check(error="a finished dialogue has no assistant reply or an empty user turn")
    def finished_dialogues_were_answered(cls, df: pd.DataFrame) -> bool:
        done = df[df.failure.isna()]
        return bool((done.rounds >= 1).all() and (done.first_query.str.strip() != "").all())


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

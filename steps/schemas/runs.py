"""Simulation run tables: one row per turn of every dialogue, and one row per dialogue's deliverable."""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

from steps.schemas.base import Strict
from steps.simulate.model import EndReason

END_REASONS = [reason.value for reason in EndReason]  # the engine's, shared by every simulated benchmark
TURN_KINDS = ["utterance", "check", "draft", "review", "deliverable"]


class Turns(Strict):
    """One row per turn, keyed by (run_id, instance_id, turn_index): speech, supervisor checks, reviews, and
    failed calls (a failure row has no text and is never heard by anyone). Latency, cache hits and cost are
    per process, not per dialogue: they are in the run's usage.parquet, joined on `call_key`."""

    run_id: Series[str] = pa.Field(str_length={"min_value": 1})
    agent: Series[str]
    scenario: Series[str]
    instance_id: Series[str]
    turn_index: Series[int] = pa.Field(ge=0)
    exchange: Series[int] = pa.Field(ge=0)  # the paper's turn: one utterance of the driver and its reply
    speaker: Series[str]
    speaker_label: Series[str]
    addressee: Series[str] = pa.Field(nullable=True)
    kind: Series[str] = pa.Field(isin=TURN_KINDS)
    stage: Series[str] = pa.Field(nullable=True)  # court stage hint from the judge's words (CI, CR)
    text: Series[str]
    model: Series[str]
    call_key: Series[str]
    prompt_tokens: Series[int] = pa.Field(ge=0)
    completion_tokens: Series[int] = pa.Field(ge=0)
    revision: Series[int] = pa.Field(ge=0)
    failure: Series[str] = pa.Field(nullable=True)
    data: Series[str]  # JSON object: the supervisor's topic check, a review verdict …

    @pa.dataframe_check(error="(run_id, instance_id, turn_index) must be unique")
    def unique_key(cls, df: pd.DataFrame) -> bool:
        return not df.duplicated(["run_id", "instance_id", "turn_index"]).any()

    @pa.dataframe_check(error="a failed call's row carries text")
    def failures_are_silent(cls, df: pd.DataFrame) -> bool:
        return bool((df.loc[df.failure.notna(), "text"] == "").all())


class Deliverables(Strict):
    """One row per dialogue: how it ended and its deliverable (complaint, defence, judgment), as the dialogue
    left it (the judge stage parses it and finds the failure causes)."""

    run_id: Series[str] = pa.Field(str_length={"min_value": 1})
    agent: Series[str]
    scenario: Series[str]
    instance_id: Series[str] = pa.Field(unique=True)
    kind: Series[str] = pa.Field(str_length={"min_value": 1})  # complaint, defence, judgment, consultation …
    text: Series[str] = pa.Field(nullable=True)
    forced: Series[bool]  # the document was asked for after the turn cap (spec j1-envs §9.2-4)
    ended_by: Series[str] = pa.Field(isin=END_REASONS)
    exchanges: Series[int] = pa.Field(ge=0)
    utterances: Series[int] = pa.Field(ge=0)
    failure: Series[str] = pa.Field(nullable=True)  # the failed call that ended the dialogue

    @pa.dataframe_check(error="a dialogue ended by a failed call must name the failure")
    def failed_has_reason(cls, df: pd.DataFrame) -> bool:
        return bool((df.loc[df.ended_by == "call_failed", "failure"].notna()).all())

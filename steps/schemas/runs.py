"""The run tables of every dialogue benchmark (J1, MILE, UCL-Bench, PLawBench's multi-turn consultations): one
row per turn (turns.parquet) and one row per dialogue (dialogues.parquet), written by one builder
(`steps.simulate.records`). A benchmark extends `Dialogues` with its own columns; turns have no extension: a
benchmark's per-turn extras are the nullable columns `stage` and `paper_turn`, or the JSON `data`.
"""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

from steps import known_benchmarks
from steps.schemas.base import Strict
from steps.simulate.model import EndReason, TurnKind

BENCHMARKS = known_benchmarks()  # the registered ones, by folder (imported by every dialogue stage: kept light)
END_REASONS = [reason.value for reason in EndReason]  # the engine's, shared by every simulated benchmark
TURN_KINDS = [kind.value for kind in TurnKind]
KEY = ["run_id", "instance_id", "turn_index"]


class Turns(Strict):
    """One row per turn, keyed by (run_id, instance_id, turn_index): speech, supervisor checks, drafts sent back,
    reviews, forced deliverables, and failed calls (a failure row has no text and is never heard by anyone).
    Latency, cache hits and cost are per process, not per dialogue: they are in the run's usage.parquet, joined
    on `call_key`."""

    run_id: Series[str] = pa.Field(str_length={"min_value": 1})
    agent: Series[str]
    benchmark: Series[str] = pa.Field(isin=BENCHMARKS)
    scenario: Series[str]  # the engine scenario: a J1 environment code, MILE, UCL, plawbench/…
    instance_id: Series[str]
    turn_index: Series[int] = pa.Field(ge=0)
    exchange: Series[int] = pa.Field(ge=0)  # one utterance of the driver and its reply
    speaker: Series[str]
    speaker_label: Series[str]  # how the other roles hear the speaker named (the role's label, else its name)
    addressee: Series[str] = pa.Field(nullable=True)
    kind: Series[str] = pa.Field(isin=TURN_KINDS)
    stage: Series[str] = pa.Field(nullable=True)  # J1 court stage from the judge's words (CI, CR)
    paper_turn: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=0)  # MILE: 0 greetings, 1…T, T + 1 complaint
    text: Series[str]
    model: Series[str]
    call_key: Series[str]
    prompt_tokens: Series[int] = pa.Field(ge=0)
    completion_tokens: Series[int] = pa.Field(ge=0)
    truncated: Series[bool]  # the reply was cut at max_tokens (finish_reason length; steps/llm/reasoning.py)
    revision: Series[int] = pa.Field(ge=0)
    failure: Series[str] = pa.Field(nullable=True)
    reasoning: Series[str] = pa.Field(nullable=True)  # the reply's reasoning trace, never in `text` (None: none)
    data: Series[str]  # JSON object: the supervisor's topic check, a review verdict …

    @pa.dataframe_check(error="(run_id, instance_id, turn_index) must be unique")
    def unique_key(cls, df: pd.DataFrame) -> bool:
        return not df.duplicated(KEY).any()

    @pa.dataframe_check(error="a failed call's row carries text")
    def failures_are_silent(cls, df: pd.DataFrame) -> bool:
        return bool((df.loc[df.failure.notna(), "text"] == "").all())


class Dialogues(Strict):
    """One row per dialogue: how it ended, its deliverable (complaint, defence, judgment …) as the dialogue left
    it, and the failed call that ended it. Evaluation is the judge stages' (J1's parses the deliverable and finds
    the failure causes)."""

    run_id: Series[str] = pa.Field(str_length={"min_value": 1})
    agent: Series[str]
    benchmark: Series[str] = pa.Field(isin=BENCHMARKS)
    scenario: Series[str]
    instance_id: Series[str] = pa.Field(unique=True)
    ended_by: Series[str] = pa.Field(isin=END_REASONS)
    exchanges: Series[int] = pa.Field(ge=0)
    utterances: Series[int] = pa.Field(ge=0)  # speech that was produced (failed calls are not speech)
    deliverable_kind: Series[str] = pa.Field(str_length={"min_value": 1})  # "dialogue" when none is asked for
    deliverable: Series[str] = pa.Field(nullable=True)
    forced: Series[bool]  # the deliverable was asked for after the turn cap (spec j1-envs §9.2-4)
    failure: Series[str] = pa.Field(nullable=True)  # "<role>: <failure>" of the failed call that ended it

    @pa.dataframe_check(error="a dialogue names its failure exactly when a failed call ended it")
    def failure_iff_call_failed(cls, df: pd.DataFrame) -> bool:
        return bool((df.failure.notna() == (df.ended_by == EndReason.CALL_FAILED.value)).all())

"""LawBench run tables: an agent's predictions and the per-task scores."""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

from steps.lawbench.metrics.tasks import SETTINGS, TASK_IDS
from steps.llm.results import EMPTY_ANSWER
from steps.schemas.base import Strict


class LawBenchRunPredictions(Strict):
    """An agent's LawBench predictions: the published layout plus the input's truncation, the call key and any
    failure. `prompt` is the whole prompt (as LawBench's `origin_prompt`); `prompt_sent` the text sent when the prompt
    was over `lawbench.max_input_tokens` and cut (null: the whole prompt was sent)."""

    setting: Series[str] = pa.Field(isin=SETTINGS)
    model: Series[str]
    task: Series[str] = pa.Field(isin=TASK_IDS)
    idx: Series[int] = pa.Field(ge=0)
    prompt: Series[str]
    prompt_role: Series[str] = pa.Field(nullable=True)
    prompt_sent: Series[str] = pa.Field(nullable=True)
    input_tokens: Series[int] = pa.Field(ge=0)  # the whole prompt's tokens, counted by `input_rule`
    input_truncated: Series[bool]  # the prompt was over `lawbench.max_input_tokens` and was cut
    input_rule: Series[str]  # how tokens were counted: `vllm /tokenize`, `llama.cpp /tokenize` or `characters`
    prediction: Series[str] = pa.Field(nullable=True)
    reference: Series[str]
    call_key: Series[str]
    truncated: Series[bool]  # the answer was cut at max_tokens (scored as it is, counted in the report)
    failure_kind: Series[str] = pa.Field(nullable=True)
    # `empty_answer`: the model answered nothing once its reasoning trace was removed (prediction "", scored so)
    outcome: Series[str] = pa.Field(nullable=True, isin=[EMPTY_ANSWER])
    reasoning: Series[str] = pa.Field(nullable=True)  # the reply's reasoning trace, never scored

    @pa.dataframe_check(error="a row has a prediction and a failure, or neither")
    def prediction_xor_failure(cls, df: pd.DataFrame) -> bool:
        return bool((df.prediction.isna() == df.failure_kind.notna()).all())


class LawBenchScores(Strict):
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


class LawBenchItemScores(Strict):
    """One row per scored item (setting, agent, task, idx): the task rule's value of the item, whose mean over
    the task's non-null values is its score (null where the rule skips the item: zero-shot 2-2 `赔偿` rows, 3-4/3-5
    death or life sentences), or, for 2-1, the item's edit counts, whose sums give the corpus F0.5. The intervals
    of the report are computed from it (steps/lawbench/intervals.py)."""

    setting: Series[str] = pa.Field(isin=SETTINGS)
    agent: Series[str]
    task: Series[str] = pa.Field(isin=TASK_IDS)
    idx: Series[int] = pa.Field(ge=0)
    score: Series[pd.Float64Dtype] = pa.Field(nullable=True)
    tp: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=0)
    fp: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=0)
    fn: Series[pd.Int64Dtype] = pa.Field(nullable=True, ge=0)

    @pa.dataframe_check(error="a 2-1 row without its edit counts, or another task's row with them")
    def counts_on_proofreading_only(cls, df: pd.DataFrame) -> bool:
        proofreading = df.task == "2-1"
        has = df.tp.notna() & df.fp.notna() & df.fn.notna()
        return bool((has == proofreading).all() and df.score[proofreading].isna().all())

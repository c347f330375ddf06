"""Model usage: one accounting row per call through the model door.

`ModelUsage` is the tracked table (each stage's `usage.parquet`, a DVC output): only what a fresh run writes, the
same bytes whatever ran before. `UsageLog` adds what depends on the run's history (latency, attempts, cache hits)
and goes to the untracked usage log under the response cache (`<llm.cache_dir>/usage/`). `CallCache` is a stage's
response-cache shard: the answers its calls got, which travel with the stage's outputs to the DVC remote."""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

from steps.llm.results import FailureKind
from steps.schemas.base import Strict


class ModelUsage(Strict):
    """One row per model call a stage makes (answered by the model, the response cache or the simulation journal
    alike), failures included. `cost_usd` is the answer's price (null: litellm has no price for the model)."""

    run_id: Series[str]
    purpose: Series[str] = pa.Field(str_length={"min_value": 1})
    model_name: Series[str]
    model: Series[str] = pa.Field(str_contains="/")
    call_key: Series[str] = pa.Field(str_length={"min_value": 64, "max_value": 64})
    prompt_tokens: Series[int] = pa.Field(ge=0)
    completion_tokens: Series[int] = pa.Field(ge=0)
    cost_usd: Series[float] = pa.Field(nullable=True, ge=0)
    truncated: Series[bool]  # an answer cut at max_tokens (finish_reason length); never a failed call
    failure_kind: Series[str] = pa.Field(nullable=True, isin=[kind.value for kind in FailureKind])
    failure_message: Series[str] = pa.Field(nullable=True)
    metadata: Series[str]  # JSON object: instance id, scenario, role, task, setting

    @pa.dataframe_check(error="a failed call is never marked truncated (a reply without an answer is a failure)")
    def truncated_answers_only(cls, df: pd.DataFrame) -> bool:
        return not bool((df.truncated & df.failure_kind.notna()).any())


class UsageLog(ModelUsage):
    """The same rows with their history: latency (0 for a hit), attempts (0 for a hit), whether the response cache
    or the journal answered, which usage table they belong to and when it was written (UTC, ISO 8601)."""

    latency_s: Series[float] = pa.Field(ge=0)
    attempts: Series[int] = pa.Field(ge=0)
    cache_hit: Series[bool]
    usage_table: Series[str]
    written_at: Series[str]


class CallCache(Strict):
    """A stage's response-cache shard (`call_cache.parquet` beside its usage table, a DVC output): one row per
    distinct call the stage got an answer to, as the response cache stores it, less latency (steps/llm/shards.py)."""

    call_key: Series[str] = pa.Field(str_length={"min_value": 64, "max_value": 64}, unique=True)
    model: Series[str] = pa.Field(str_contains="/")
    text: Series[str]
    prompt_tokens: Series[int] = pa.Field(ge=0)
    completion_tokens: Series[int] = pa.Field(ge=0)
    cost_usd: Series[float] = pa.Field(nullable=True, ge=0)
    truncated: Series[bool]  # cut at max_tokens: replayed as such

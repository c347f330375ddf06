"""Model usage: one accounting row per call through the model door."""

from __future__ import annotations

import pandera.pandas as pa
from pandera.typing import Series

from steps.llm.results import FailureKind
from steps.schemas.base import Strict


class ModelUsage(Strict):
    """One row per model call through the door: hits, misses and failures."""

    run_id: Series[str]
    purpose: Series[str] = pa.Field(str_length={"min_value": 1})
    model_name: Series[str]
    model: Series[str] = pa.Field(str_contains="/")
    call_key: Series[str] = pa.Field(str_length={"min_value": 64, "max_value": 64})
    prompt_tokens: Series[int] = pa.Field(ge=0)
    completion_tokens: Series[int] = pa.Field(ge=0)
    cost_usd: Series[float] = pa.Field(nullable=True, ge=0)
    latency_s: Series[float] = pa.Field(ge=0)
    attempts: Series[int] = pa.Field(ge=0)
    cache_hit: Series[bool]
    failure_kind: Series[str] = pa.Field(nullable=True, isin=[kind.value for kind in FailureKind])
    failure_message: Series[str] = pa.Field(nullable=True)
    metadata: Series[str]  # JSON object: instance id, scenario, role, task, setting

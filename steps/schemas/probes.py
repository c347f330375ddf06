"""The judge probes of a judge stage (`<run>/judge_probes.parquet`, `steps.judges.probes`): one row per probe call."""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

from steps.schemas.base import Strict


class JudgeProbes(Strict):
    item_id: Series[str]
    probe: Series[str] = pa.Field(isin=["repeat", "shuffle"])
    round: Series[int] = pa.Field(ge=0)
    judge: Series[str]
    judge_proxy: Series[bool]
    value: Series[float] = pa.Field(nullable=True, ge=0.0, le=1.0)
    failure: Series[str] = pa.Field(nullable=True)
    items: Series[str]  # JSON: rubric item id -> what the judge gave it

    @pa.dataframe_check(error="a probe row has either a value or a failure")
    def value_xor_failure(cls, df: pd.DataFrame) -> bool:
        return bool((df.value.isna() != df.failure.isna()).all())

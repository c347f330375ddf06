"""The base of every judged table: the columns each judged row has, named once, and the value-xor-failure rule.

J1 scores, MILE scores, UCL-Bench verdicts and hint scores and PLawBench judgements extend it with their own
key and columns; `steps.judges.result` fills these columns (`Judgement.row`, `JudgedBy.row`).
"""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

from steps.schemas.base import Strict


class Judged(Strict):
    """A value in [0, 1] or the failure that leaves it out (counted, never scored 0), and who produced it.

    `judge` is the judge model ("rule" for a rule value, "" when nothing was judged), `judge_proxy` is True when
    the proxy judge (a scripted model) produced the value, `attempts` counts the judge's calls (repair rounds
    included), `truncated` whether an answer it read was cut at max_tokens. A table whose rows may hold neither a
    value nor a failure (nothing to compare) says which rows in `unvalued`.
    """

    judge: Series[str]
    judge_prompt_version: Series[str]
    judge_proxy: Series[bool]
    value: Series[float] = pa.Field(nullable=True, ge=0.0, le=1.0)
    failure: Series[str] = pa.Field(nullable=True)
    error: Series[str]
    attempts: Series[int] = pa.Field(ge=0)
    truncated: Series[bool]  # an answer the judge gave was cut at max_tokens (finish_reason length)

    @classmethod
    def unvalued(cls, df: pd.DataFrame) -> pd.Series:
        """The rows allowed to have neither a value nor a failure (none by default)."""
        return pd.Series(False, index=df.index)

    @pa.dataframe_check(error="a row has a value or a failure, never both, and never neither unless it is unvalued")
    def value_xor_failure(cls, df: pd.DataFrame) -> bool:
        has_value, has_failure = df.value.notna(), df.failure.notna()
        return bool(((has_value != has_failure) | (~has_value & ~has_failure & cls.unvalued(df))).all())

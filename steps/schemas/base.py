"""The base of every schema: strict, coercing models, list checks, and one-line validation errors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeGuard, TypeVar

import pandas as pd
import pandera.pandas as pa

T = TypeVar("T")


def is_list_of(value: object, kind: type[T]) -> TypeGuard[Sequence[T]]:
    return isinstance(value, list | tuple) and all(isinstance(v, kind) for v in value)


def is_list_of_dicts_with(value: object, *keys: str) -> TypeGuard[Sequence[dict[str, Any]]]:
    return isinstance(value, list | tuple) and all(isinstance(v, dict) and set(keys) <= set(v) for v in value)


class Strict(pa.DataFrameModel):
    class Config:
        strict = True
        coerce = True


class TableError(Exception):
    """A table breaks its schema; the message names the table, the first failing row and the rule."""


def _id_column(df: pd.DataFrame) -> str | None:
    return next((c for c in ("item_id", "instance_id", "case_id") if c in df.columns), None)


def validate(df: pd.DataFrame, schema: type[pa.DataFrameModel], *, table: str, origin: str = "") -> pd.DataFrame:
    """Validate lazily and raise one `TableError` line naming the first failure and the count."""
    try:
        return schema.validate(df, lazy=True)
    except pa.errors.SchemaErrors as e:
        cases = e.failure_cases
        first = cases.iloc[0]
        idx = first.get("index")
        where = "table"
        if idx is not None and not pd.isna(idx) and int(idx) in df.index:
            id_col = _id_column(df)
            where = f"row {int(idx)}" + (f" ({id_col}={df.loc[int(idx), id_col]})" if id_col else "")
        column = first.get("column")
        rule = f"column '{column}' fails {first['check']}" if column and not pd.isna(column) else str(first["check"])
        more = f" (and {len(cases) - 1} more failure(s))" if len(cases) > 1 else ""
        src = f" from {origin}" if origin else ""
        raise TableError(f"{table}{src}: {where}: {rule}; value {first['failure_case']!r}{more}") from None

"""Reading and writing validated Parquet tables; writes are atomic (temporary file, then rename)."""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pandera.pandas as pa
import pyarrow as pa_arrow
import pyarrow.parquet as pq

from steps.schemas import validate


def to_arrow(df: pd.DataFrame, arrow_types: dict[str, pa_arrow.DataType] | None = None) -> pa_arrow.Table:
    """Convert with fixed types for nested columns; other columns are inferred."""
    table = pa_arrow.Table.from_pandas(df, preserve_index=False)
    for name, typ in (arrow_types or {}).items():
        i = table.schema.get_field_index(name)
        if i >= 0 and table.schema.field(i).type != typ:
            table = table.set_column(i, name, pa_arrow.array(df[name].tolist(), type=typ))
    return table


class OutputError(OSError):
    """An output could not be written (disk full, read-only file system, no permission); one line naming it."""

    def __init__(self, message: str, error_number: int | None = None):
        super().__init__(message)
        self.errno = error_number


def _write_atomic(path: Path, write: Callable[[Path], object]) -> None:
    """`write` a temporary file beside `path`, then rename it into place; an OSError on the way leaves the earlier
    file as it was, removes the temporary file and becomes an OutputError naming `path` and the cause."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write(tmp)
        os.replace(tmp, path)
    except OSError as err:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        code = errno.errorcode.get(err.errno, "") if err.errno else ""
        cause = " ".join(f"{code + ': ' if code else ''}{err.strerror or err}".split())
        raise OutputError(
            f"{path}: cannot write ({cause}); free space or make it writable, then rerun", err.errno
        ) from None


def write_text_atomic(path: Path, text: str) -> None:
    """Write a report (Markdown, CSV, JSON) to a temporary name, then rename it into place."""
    _write_atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def write_parquet_atomic(table: pa_arrow.Table, path: Path) -> None:
    _write_atomic(path, lambda tmp: pq.write_table(table, tmp, compression="zstd"))


def write_table(
    df: pd.DataFrame,
    path: Path,
    schema: type[pa.DataFrameModel],
    *,
    table: str,
    arrow_types: dict[str, pa_arrow.DataType] | None = None,
) -> pd.DataFrame:
    """Validate `df` against `schema`, then write it to `path` atomically; returns the validated frame."""
    valid = validate(df.reset_index(drop=True), schema, table=table)
    write_parquet_atomic(to_arrow(valid, arrow_types), path)
    return valid


def read_table(path: Path, schema: type[pa.DataFrameModel] | None = None, *, table: str | None = None) -> pd.DataFrame:
    """Read a Parquet table (nested columns as Python lists/dicts) and optionally validate it."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: table not found; run the stage that writes it (see dvc.yaml)")
    df = pq.read_table(path).to_pandas(maps_as_pydicts="strict")
    df = _nested_to_python(df)
    return validate(df, schema, table=table or path.stem) if schema is not None else df


def _nested_to_python(df: pd.DataFrame) -> pd.DataFrame:
    """Arrow list columns come back as numpy arrays; turn them into lists so checks and equality are plain."""
    for col in df.columns:
        if df[col].dtype == object and any(hasattr(v, "tolist") for v in df[col].dropna().head(1)):
            df[col] = [_plain(v) for v in df[col]]
    return df


def _plain(value):
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def natural_key(text: object) -> tuple[Any, ...]:
    """A sort key that orders the numbers inside a text by value: `2-2` before `2-10`, `dialogues 9` before
    `dialogues 10` (None sorts as the empty text)."""
    import re

    parts = re.split(r"(\d+)", "" if text is None else str(text))
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts))  # text at even places, numbers at odd


def table_rows(frame: Any, digits: int = 2) -> list[dict[str, Any]]:
    """A DataFrame as JSON-safe rows (floats rounded, NaN as None) for a table artifact."""
    import math

    rows = []
    for row in frame.to_dict("records"):
        clean = {}
        for k, v in row.items():
            if hasattr(v, "item"):
                v = v.item()
            if isinstance(v, float):
                v = None if math.isnan(v) else round(v, digits)
            clean[str(k)] = v
        rows.append(clean)
    return rows


def batches(ids: Sequence[str], size: int, noun: str = "dialogues") -> dict[str, str]:
    """Each id's batch label, `size` ids per batch in order: `dialogues 1-20`, `dialogues 21-40` ... (the units a
    stage's monitor shows for one engine call)."""
    return {x: f"{noun} {i // size * size + 1}-{min(len(ids), (i // size + 1) * size)}" for i, x in enumerate(ids)}

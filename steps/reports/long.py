"""The long-format CSV twin of every report (`reports/<name>.csv`): its pandera schema, its one writer, and the
check of long rows made by SQL.

One row per reported number. Columns, in order: benchmark, table, agent, scope, metric, value, n, [n_failed,]
[n_unparsable,] [limit, protocol,] judge, proxy, source, [se, ci_low, ci_high, ci_method]. The interval columns
(steps/stats/cells.py) are filled on our rows where an interval is defined and empty on the paper's. The five
benchmark twins have `n_failed` (units that failed model calls left out; empty on the paper's rows), the extraction
and instances twins do not; the twins of the LLM-judged benchmarks (J1, MILE, UCL-Bench, PLawBench) also have
`n_unparsable` (judged units left out because the judge's answer did not parse after its repair rounds; empty on the
paper's rows); the benchmark twins have `limit` (the item limit of the agent's run, `[limit N]` in every output;
empty for full runs and the paper's rows) and `protocol` (the agent's protocol label, steps/protocol.py: `paper
protocol` or the deviations; empty on the paper's rows), and `proxy` is true where a scripted stand-in touched the
number (steps/reports/labels.py). Every twin is validated against `LongRows` before it is written, so a report whose
rows drift from the shared layout (a column missing or out of order, a number twice, a paper row with failed calls)
fails its stage with one line instead of writing a file that `jurisflow results`, the DVC metrics and plots or a
user's script would misread. The schema checks and never coerces: the writer writes the frame as given, so each file
keeps its exact format. (It lives here, not in steps/schemas/, whose every file is in the J1 simulation's code
fingerprint.)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

from steps.schemas.base import TableError, validate
from steps.sql import run_query

SOURCES = ("ours", "paper")
KEY = ["table", "agent", "scope", "metric", "source"]


def _numbers(series: pd.Series) -> pd.Series | None:
    """The column's values as floats (NA dropped), or None when it holds anything but numbers: a numeric dtype, or
    objects holding numbers and NA (as a concat of counts with the paper's empty cells makes). Booleans and
    strings are not numbers."""
    known = series.dropna()
    if pd.api.types.is_bool_dtype(series):
        return None
    if not pd.api.types.is_numeric_dtype(series) and not all(
        isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool | np.bool_) for v in known
    ):
        return None
    return known.astype(float)


def _counts(series: pd.Series) -> bool:
    """A count column: whole, non-negative numbers where it has a value."""
    numbers = _numbers(series)
    return numbers is not None and bool(((numbers >= 0) & (numbers == numbers.round())).all())


class LongRows(pa.DataFrameModel):
    """One reported number per row, ours or the paper's; `scope` is the task, environment or category
    (`overall` for whole-benchmark numbers), `metric` the paper's own label."""

    benchmark: Series[str] = pa.Field(str_length={"min_value": 1})
    table: Series[str] = pa.Field(str_length={"min_value": 1})
    agent: Series[str] = pa.Field(nullable=True)
    scope: Series[str] = pa.Field(nullable=True)
    metric: Series[str] = pa.Field(str_length={"min_value": 1})
    value: Series[Any] = pa.Field(nullable=True)
    n: Series[Any] = pa.Field(nullable=True)
    n_failed: Series[Any] | None = pa.Field(nullable=True)
    n_unparsable: Series[Any] | None = pa.Field(nullable=True)
    limit: Series[Any] | None = pa.Field(nullable=True)
    protocol: Series[Any] | None = pa.Field(nullable=True)
    judge: Series[str] = pa.Field(nullable=True)
    proxy: Series[bool]
    source: Series[str] = pa.Field(isin=list(SOURCES))
    se: Series[Any] | None = pa.Field(nullable=True)
    ci_low: Series[Any] | None = pa.Field(nullable=True)
    ci_high: Series[Any] | None = pa.Field(nullable=True)
    ci_method: Series[Any] | None = pa.Field(nullable=True)

    class Config:
        strict = True
        ordered = True
        coerce = False

    @pa.check("value", error="not a number")
    def value_is_a_number(cls, series: pd.Series) -> bool:
        return _numbers(series) is not None

    @pa.check("n", error="not a whole, non-negative count")
    def n_is_a_count(cls, series: pd.Series) -> bool:
        return _counts(series)

    @pa.check("n_failed", error="not a whole, non-negative count")
    def n_failed_is_a_count(cls, series: pd.Series) -> bool:
        return _counts(series)

    @pa.check("n_unparsable", error="not a whole, non-negative count")
    def n_unparsable_is_a_count(cls, series: pd.Series) -> bool:
        return _counts(series)

    @pa.check("limit", error="not a whole, positive item limit")
    def limit_is_a_limit(cls, series: pd.Series) -> bool:
        return _counts(series) and bool((series.dropna().astype(float) > 0).all())

    @pa.check("se", error="not a non-negative number")
    def se_is_non_negative(cls, series: pd.Series) -> bool:
        numbers = _numbers(series)
        return numbers is not None and bool((numbers >= 0).all())

    @pa.check("ci_low", error="not a number")
    def ci_low_is_a_number(cls, series: pd.Series) -> bool:
        return _numbers(series) is not None

    @pa.check("ci_high", error="not a number")
    def ci_high_is_a_number(cls, series: pd.Series) -> bool:
        return _numbers(series) is not None

    @pa.dataframe_check(error="an interval without its method, or ci_low above ci_high")
    def intervals_are_named_and_ordered(cls, df: pd.DataFrame) -> bool:
        if "ci_low" not in df:
            return True
        low, high = df.ci_low.astype(float), df.ci_high.astype(float)
        named = df.ci_method.fillna("").astype(str).ne("") | (low.isna() & high.isna())
        return bool(named.all() and not (low > high + 1e-9).any())

    @pa.dataframe_check(error="a paper row has an interval method (the paper's intervals are its printed ones)")
    def paper_intervals_are_printed(cls, df: pd.DataFrame) -> bool:
        if "ci_method" not in df:
            return True
        paper = df[df.source == "paper"]
        return not bool(paper.ci_method.fillna("").astype(str).str.match(r"(wilson|cluster-)").any())

    @pa.dataframe_check(error="(table, agent, scope, metric, source) is not unique")
    def one_number_per_key(cls, df: pd.DataFrame) -> bool:
        return not df[KEY].fillna("").duplicated().any()

    @pa.dataframe_check(error="a paper row has n_failed (it counts our failed calls only)")
    def paper_rows_have_no_failed_calls(cls, df: pd.DataFrame) -> bool:
        return "n_failed" not in df or bool(df.n_failed[df.source == "paper"].isna().all())

    @pa.dataframe_check(error="a paper row has n_unparsable (it counts our judge's answers only)")
    def paper_rows_have_no_unparsable_answers(cls, df: pd.DataFrame) -> bool:
        return "n_unparsable" not in df or bool(df.n_unparsable[df.source == "paper"].isna().all())

    @pa.dataframe_check(error="a paper row has a limit (it is our runs' item limit)")
    def paper_rows_have_no_limit(cls, df: pd.DataFrame) -> bool:
        return "limit" not in df or bool(df["limit"][df.source == "paper"].isna().all())

    @pa.dataframe_check(error="a paper row has a protocol label (it is our runs')")
    def paper_rows_have_no_protocol(cls, df: pd.DataFrame) -> bool:
        if "protocol" not in df:
            return True
        return not bool(df["protocol"][df.source == "paper"].fillna("").astype(str).ne("").any())

    @pa.dataframe_check(error="more than one benchmark in one CSV twin")
    def one_benchmark(cls, df: pd.DataFrame) -> bool:
        return df.benchmark.nunique() <= 1


LONG_COLUMNS = list(LongRows.to_schema().columns)


INTERVAL_COLUMNS = ["se", "ci_low", "ci_high", "ci_method"]


def long_columns(
    with_failed: bool = True, with_unparsable: bool = False, with_limit: bool = False, with_intervals: bool = False
) -> list[str]:
    """The twin's columns in order; the extraction and instances twins have no `n_failed`, only the twins of
    LLM-judged benchmarks have `n_unparsable`, and the benchmark twins `limit` and `protocol` (`labelled_rows`
    adds them); the twins of benchmarks that register item scores end with `se`, `ci_low`, `ci_high`,
    `ci_method` (steps/stats/cells.py: our rows' standard error, 95 % interval and its method)."""
    left_out = set(INTERVAL_COLUMNS) if not with_intervals else set()
    left_out |= {"n_failed"} if not with_failed else set()
    left_out |= {"n_unparsable"} if not with_unparsable else set()
    left_out |= {"limit", "protocol"} if not with_limit else set()
    return [c for c in LONG_COLUMNS if c not in left_out]


def checked(
    rows: pd.DataFrame,
    *,
    table: str,
    with_failed: bool = True,
    with_unparsable: bool = False,
    with_limit: bool = False,
    with_intervals: bool = False,
) -> pd.DataFrame:
    """`rows` reduced to the twin's columns (in order) and validated; a missing column or a broken rule is a
    one-line `TableError` naming `table`."""
    columns = long_columns(with_failed, with_unparsable, with_limit, with_intervals)
    missing = [c for c in columns if c not in rows.columns]
    if missing:
        raise TableError(f"{table}: long rows lack the column(s) {', '.join(missing)}")
    return validate(rows[columns], LongRows, table=table)


def long_query(con: duckdb.DuckDBPyConnection, query: Path, *, with_unparsable: bool = False) -> pd.DataFrame:
    """Run the query `query` (a .sql file), which makes long rows, and check them against the schema."""
    return checked(run_query(con, query), table=str(query), with_unparsable=with_unparsable)


def long_csv(
    rows: pd.DataFrame,
    *,
    table: str,
    digits: int | None = None,
    whole: Sequence[str] = (),
    with_failed: bool = True,
    with_unparsable: bool = False,
    with_limit: bool = False,
    with_intervals: bool = False,
) -> str:
    """The CSV twin's text: the rows in the schema's column order, `value` rounded to `digits` places, the
    `whole` count columns as integers (empty stays empty), checked against the schema before a byte is written.
    Other columns keep their dtype, so each twin keeps its format (LawBench and PLawBench write `n` as floats)."""
    out = rows.copy()
    if digits is not None:
        out["value"] = out["value"].round(digits)
    for column in whole:
        out[column] = out[column].astype("Int64")
    checked_rows = checked(
        out,
        table=table,
        with_failed=with_failed,
        with_unparsable=with_unparsable,
        with_limit=with_limit,
        with_intervals=with_intervals,
    )
    return checked_rows.to_csv(index=False, lineterminator="\n")

"""The long result table: steps/sql/ucl_long.sql over the run tables (DuckDB), plus the p-values."""

from __future__ import annotations

import duckdb
import pandas as pd

from steps.sql import run_query
from steps.ucl.report import add_p_values
from steps.ucl.tasks import tasks_frame

INPUTS = ("verdicts", "hint_scores", "dialogues", "paper", "agents")


def long_table(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Run ucl_long.sql over `tables` (the INPUTS; `ucl_tasks` is added) and add a p for every r."""
    missing = [name for name in INPUTS if name not in tables]
    if missing:
        raise ValueError(f"ucl_long needs the tables {', '.join(missing)}")
    with duckdb.connect() as con:
        for name, df in {**tables, "ucl_tasks": tasks_frame()}.items():
            con.register(name, df)
        long = run_query(con, "ucl_long")
    long["n"] = long["n"].astype("Int64")
    return add_p_values(long)

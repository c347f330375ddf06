"""The paper's published numbers (Tables 2–4) and error taxonomy (Tables 5, 20, 21), read from `paper_tables/`.

Copied from the paper (spec plawbench.md §1.3, §3.1, §4.1, §4.3); the report prints them beside ours. The
error types are the paper's; the Chinese labels are ours (what our judge prompt lets the judge choose from).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pandas as pd

from steps.reports.paper_tables import load_paper_table

TABLES = Path(__file__).parent / "paper_tables"
FINAL_JUDGE = "Gemini-3.0-Pro-Preview"


def table3() -> pd.DataFrame:
    """Table 3: scoring rates (%) of the paper's ten models."""
    return load_paper_table(TABLES / "table3.csv").frame


def table3_long() -> pd.DataFrame:
    """Table 3 as rows (model, metric, value in [0, 1])."""
    wide = table3()
    long = wide.melt(id_vars="model", var_name="metric", value_name="value")
    return long.assign(value=long.value / 100)


def table2() -> pd.DataFrame:
    """Table 2: dataset statistics of the full (partly unreleased) benchmark."""
    return load_paper_table(TABLES / "table2.csv").frame


def table4() -> pd.DataFrame:
    """Table 4: judge–human agreement (Pearson / Spearman, analysis / drafting / consultation)."""
    return load_paper_table(TABLES / "table4.csv").frame


@cache
def _error_types() -> pd.DataFrame:
    return load_paper_table(TABLES / "error_types.csv").frame


def error_types() -> pd.DataFrame:
    """(category, paper category, paper error type, our label) of every error type of Tables 5, 20, 21."""
    return _error_types().copy()


def error_labels(category: str) -> tuple[str, ...]:
    types = _error_types()
    return tuple(types.label[types.category == category])


def paper_names() -> dict[str, tuple[str, ...]]:
    """Table 3's models (named in the registration; no other spellings)."""
    return {m: () for m in table3().model}

"""Small, dependency-free Markdown table rendering."""

from __future__ import annotations

import math

import pandas as pd


def _cell(value: object, total_label: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return total_label
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".")
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10000 else str(value)
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(df: pd.DataFrame, *, null: str = "—") -> str:
    """Render a DataFrame as a GitHub-flavoured Markdown table; nulls become `null`."""
    header = "| " + " | ".join(str(c) for c in df.columns) + " |"
    align = "|" + "|".join("---:" if pd.api.types.is_numeric_dtype(df[c]) else "---" for c in df.columns) + "|"
    rows = ["| " + " | ".join(_cell(v, null) for v in row) + " |" for row in df.itertuples(index=False, name=None)]
    return "\n".join([header, align, *rows])

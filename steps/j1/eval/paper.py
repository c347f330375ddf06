"""The J1 paper's published numbers (Jia et al., "Ready Jurist One", Tables 3 and 6-12; spec j1-envs §7), read from
`paper_tables/table{3,6,7,8,9,10,11,12}.csv`.

Values are on the paper's 0-100 scale as printed; "-" (the model failed the task) is kept as missing here and
counts as 0 in the paper's averages. Tables 3 and 6-10 were run in an environment driven by GPT-4o
(gpt-4o-2024-11-20, also the judge); Tables 11-12 (three repeats, mean and std) in one driven by Qwen3-32B.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pandas as pd

from steps.reports.paper_tables import load_paper_table

TABLES = Path(__file__).parent / "paper_tables"

PAPER_ENVIRONMENT = "GPT-4o (gpt-4o-2024-11-20)"
PAPER_JUDGE = "GPT-4o (gpt-4o-2024-11-20)"
PAPER_REPEATS_ENVIRONMENT = "Qwen3-32B"
# other spellings of the paper's models (API and Hugging Face names), for agents named after one of them
ALIASES = {
    "GPT-4o": ("gpt-4o-2024-11-20",),
    "Claude-3.7": ("claude-3-7-sonnet-20250219", "claude-3.7-sonnet"),
    "Deepseek-v3 671B": ("deepseek-chat", "DeepSeek-V3", "deepseek-v3"),
    "Deepseek-r1 671B": ("deepseek-reasoner", "DeepSeek-R1", "deepseek-r1"),
    "Llama3.3-it 70B": ("Llama-3.3-70B-Instruct",),
    "Qwen3 32B": ("Qwen3-32B",),
    "Gemma3-it 27B": ("gemma-3-27b-it",),
    "Qwen3 14B": ("Qwen3-14B",),
    "Gemma3-it 12B": ("gemma-3-12b-it",),
    "GLM4 9B": ("glm-4-9b-chat", "GLM-4-9B-Chat"),
    "Qwen3 8B": ("Qwen3-8B",),
    "InternLM3-it 8B": ("internlm3-8b-instruct",),
    "Ministral-it 8B": ("Ministral-8B-Instruct-2410",),
    "Qwen2.5-it 7B": ("Qwen2.5-7B-Instruct",),
    "Qwen3 4B": ("Qwen3-4B",),
    "LawLLM 13B": ("LawLLM-13B",),
    "Chatlaw2 7B": ("Chatlaw2-7B", "ChatLaw2-MoE"),
}
_COLUMN = re.compile(r"^(?P<scope>KQ|LC|CD|DD|CI|CR)_(?P<metric>.+?)(?:_(?P<stat>mean|std))?$")


def _frame(name: str) -> pd.DataFrame:
    return load_paper_table(TABLES / name).frame


def _melt(name: str, table: str, scope: str | None = None, prefix: str = "") -> pd.DataFrame:
    """One row per (model, column): scope and metric from the column name (KQ_I-1, III-1_STA, PLA …)."""
    wide = _frame(name)
    rows = []
    for record in wide.to_dict("records"):
        for column, value in record.items():
            if column in ("group", "model"):
                continue
            m = _COLUMN.match(column)
            where: str | None
            if column in ("AVG_OO", "AVG_PO"):
                where, metric, stat = "overall", column, None
            elif m and scope is None:
                where, metric, stat = m["scope"], m["metric"], m["stat"]
            else:
                where, metric, stat = scope, prefix + column.replace("_", "/"), None
            rows.append(
                {
                    "table": table if stat is None else f"repeats_{stat}",
                    "model": record["model"],
                    "scope": where,
                    "metric": metric,
                    "value": value,
                }
            )
    return pd.DataFrame(rows)


def _turns() -> pd.DataFrame:
    """Table 10: average turns, one column per environment."""
    wide = _frame("table10.csv").drop(columns="group")
    long = wide.melt(id_vars="model", var_name="scope", value_name="value")
    return long.assign(table="table10", metric="turns")[["table", "model", "scope", "metric", "value"]]


@cache
def paper_long() -> pd.DataFrame:
    """Every published number: table, model, scope (KQ … CR, overall), metric (I-1, II-2/PLA, AVG_OO …), value."""
    parts = [
        _melt("table3.csv", "table3"),
        _melt("table6.csv", "table6", "CD", "II-2/"),
        _melt("table7.csv", "table7", "DD", "II-2/"),
        _melt("table8.csv", "table8", "CI", "III-1/"),
        _melt("table9.csv", "table9", "CR"),
        _turns(),
        _melt("table11.csv", "repeats"),
        _melt("table12.csv", "repeats"),
    ]
    return pd.concat(parts, ignore_index=True)


def models() -> list[str]:
    return _frame("table3.csv").model.tolist()


def paper_names() -> dict[str, tuple[str, ...]]:
    """J1 Table 3's models and their other spellings (named in the registration, steps/j1/benchmark.py)."""
    return {m: ALIASES.get(m, ()) for m in models()}

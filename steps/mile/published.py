"""The paper's published MILE numbers (Yue et al., NAACL 2025 Findings, Tables 1–3; spec maser-mile §5), read from
`paper_tables/table{1,2,3}.csv`.

Scores are on the paper's 0–100 scale. The printed goal AVE is not the 7-metric mean for 9 of the 13 Table 1
rows (e.g. GPT-3.5-turbo: mean 57.42, printed 51.77); `AVE` keeps the printed value and `AVE (7-mean)` is the
recomputed mean, the one we report for our runs. Table 3's rows are raters (GPT-4o, human) and its columns the
lawyer the client talked to.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pandas as pd

from steps.reports.paper_tables import load_paper_table

TABLES = Path(__file__).parent / "paper_tables"
GOAL_METRICS = ("CLI", "DEF", "F&R", "CLA", "EVID", "STA", "PROF")
# other spellings of the paper's model names (litellm strings, Hugging Face ids), for "same-named" rows
ALIASES = {
    "GPT-4o": ("gpt-4o-2024-08-06",),
    "Qwen2.5-instruct-7B": ("Qwen2.5-7B-Instruct",),
    "LLaMa-3.1-instruct-8B": ("Llama-3.1-8B-Instruct", "Meta-Llama-3.1-8B-Instruct"),
    "Mistral-instruct-v0.3-7B": ("Mistral-7B-Instruct-v0.3",),
    "InternLM2.5-chat-7B": ("internlm2_5-7b-chat",),
    "Baichuan2-chat-7B": ("Baichuan2-7B-Chat",),
    "Baichuan2-chat-13B": ("Baichuan2-13B-Chat",),
    "Gemini-1.5-pro": ("gemini-1.5-pro",),
    "SynthLaw-7B": ("SynthLaw",),
}


@cache
def _paper_long() -> pd.DataFrame:
    goal = load_paper_table(TABLES / "table1.csv").frame
    goal["AVE (7-mean)"] = goal[list(GOAL_METRICS)].mean(axis=1).round(2)
    inter = load_paper_table(TABLES / "table2.csv").frame
    cons = load_paper_table(TABLES / "table3.csv").frame
    cons = cons.melt(id_vars="rater", var_name="model", value_name="value")
    frames = [
        goal.melt(id_vars=["group", "model"], var_name="metric").assign(table="goal"),
        inter.melt(id_vars=["group", "model"], var_name="metric").assign(table="interaction"),
        cons.assign(group=cons.rater, metric="CONS", table="consistency").drop(columns="rater"),
    ]
    return pd.concat(frames, ignore_index=True)[["table", "group", "model", "metric", "value"]]


def paper_long() -> pd.DataFrame:
    """The published numbers as long rows: table, group, model, metric, value."""
    return _paper_long().copy()


def paper_names() -> dict[str, tuple[str, ...]]:
    """The models of MASER's Table 1 and their other spellings (named in the registration)."""
    return {m: ALIASES.get(m, ()) for m in dict.fromkeys(paper_long().query("table == 'goal'").model)}

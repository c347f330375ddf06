"""The paper's Table 3 (win rates against ChatGPT, GPT-4 judge), read from `paper_tables/table3.csv`.

The numbers are the paper's (checked cell by cell against the paper's text in tests/ucl/test_paper_and_stats.py).
The o1-preview row has 22 numbers for 23 cells in the paper; we leave its 1-1 cell empty (spec ucl-bench §5.1).
AVG is kept as printed: it is the macro mean of the 22 cells within 0.1 for most rows (spec §4.2). The `aliases`
column gives each model's other spellings (its model id in the paper's Table 10, …), for matching agents to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pandas as pd

from steps.reports.labels import name_key
from steps.reports.paper_tables import PaperTable, load_paper_table

TABLE = Path(__file__).parent / "paper_tables" / "table3.csv"
JUDGE = "gpt-4-0613"  # the paper's judge (App. E.1)
REFERENCE = "ChatGPT (reference)"  # gpt-3.5-turbo-1106


@dataclass(frozen=True)
class PaperModel:
    name: str
    keys: frozenset[str]
    cells: dict[str, float | None]  # task id or AVG -> win rate (%)


def table3() -> PaperTable:
    return load_paper_table(TABLE)


@cache
def paper_models() -> tuple[PaperModel, ...]:
    out = []
    for row in table3().frame.to_dict("records"):
        aliases = row["aliases"] if isinstance(row["aliases"], str) else ""
        keys = {name_key(row["model"])} | {name_key(a) for a in aliases.split(";") if a}
        cells = {k: None if pd.isna(v) else float(v) for k, v in row.items() if k not in ("model", "aliases")}
        out.append(PaperModel(row["model"], frozenset(keys), cells))
    return tuple(out)


def paper_long(matches: dict[str, PaperModel]) -> pd.DataFrame:
    """Long rows (agent, scope, value) of the paper's cells for our matched agents; AVG becomes `overall`."""
    rows = [
        {"agent": agent, "paper_model": p.name, "scope": "overall" if k == "AVG" else k, "value": v}
        for agent, p in matches.items()
        for k, v in p.cells.items()
    ]
    return pd.DataFrame(rows, columns=["agent", "paper_model", "scope", "value"])


def paper_names() -> dict[str, tuple[str, ...]]:
    """Table 3's models and their other spellings (named in the registration)."""
    return {p.name: tuple(p.keys) for p in paper_models()}


def win_rates() -> pd.DataFrame:
    """Every Table 3 model's AVG win rate, as the leaderboard quotes it (named in the registration): agent, value,
    judge."""
    frame = table3().frame
    return pd.DataFrame({"agent": frame.model, "value": frame["AVG"], "judge": JUDGE})

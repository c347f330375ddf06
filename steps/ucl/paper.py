"""The paper's Table 3 (win rates against ChatGPT, GPT-4 judge) and matching our agents to its models.

The numbers are the paper's (checked cell by cell against the paper's text in tests/ucl/test_paper.py). The
o1-preview row has 22 numbers for 23 cells in the paper; we leave its 1-1 cell empty (spec ucl-bench §5.1).
AVG is kept as printed: it is the macro mean of the 22 cells within 0.1 for most rows (spec §4.2).

An agent matches a paper model when its alias, or the last part of its litellm model string, equals the
paper's name or one of the model ids of the paper's Table 10, ignoring case and everything but letters and
digits (`openai/gpt-4-0613` and an agent named `gpt4` both match GPT-4).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pandas as pd

TABLE = Path(__file__).parent / "paper_table3.csv"
JUDGE = "gpt-4-0613"  # the paper's judge (App. E.1)
REFERENCE = "ChatGPT (reference)"  # gpt-3.5-turbo-1106


def normalise(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.lower())


@dataclass(frozen=True)
class PaperModel:
    name: str
    keys: frozenset[str]
    cells: dict[str, float | None]  # task id or AVG -> win rate (%)


@cache
def paper_models() -> tuple[PaperModel, ...]:
    out = []
    with TABLE.open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            keys = {normalise(row["model"])} | {normalise(a) for a in row["aliases"].split(";") if a}
            cells = {k: float(v) if v else None for k, v in row.items() if k not in ("model", "aliases")}
            out.append(PaperModel(row["model"], frozenset(keys), cells))
    return tuple(out)


def match(alias: str, model: str) -> PaperModel | None:
    """The paper model an agent stands for, or None (scripted models never match)."""
    if model.startswith("scripted/"):
        return None
    wanted = {normalise(alias), normalise(model.rsplit("/", 1)[-1])}
    return next((p for p in paper_models() if p.keys & wanted), None)


def paper_long(matches: dict[str, PaperModel]) -> pd.DataFrame:
    """Long rows (agent, scope, value) of the paper's cells for our matched agents; AVG becomes `overall`."""
    rows = [
        {"agent": agent, "paper_model": p.name, "scope": "overall" if k == "AVG" else k, "value": v}
        for agent, p in matches.items()
        for k, v in p.cells.items()
    ]
    return pd.DataFrame(rows, columns=["agent", "paper_model", "scope", "value"])

"""MILE's HTML page (its registration's `page` and `dialogue_reader`): the goal and interaction dimensions'
charts, cells linked to the viewer, and the transcript viewer's records of a run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from steps.paths import DIALOGUES, TURNS
from steps.reports.html import dialogues
from steps.reports.html.viewer import optional, read_table


def charts(df: pd.DataFrame, chart: Callable[..., str]) -> list[str]:
    metric = lambda r: r.metric  # noqa: E731
    out = []
    for table in ("goal", "interaction"):
        rows = df[(df.table == table) & (df.scope == "overall")]
        metrics = [m for m in dict.fromkeys(rows.metric) if not m.endswith("-norm")]
        out.append(chart(f"MILE {table} dimensions", table, metrics, metric, scope="overall"))
    return out


def link(href: Callable[..., str], envs: set[str], agent: str, scope: str, metric: str) -> str | None:
    """A cause of action links to its dialogues, the overall scope to all of the agent's."""
    if scope in envs:
        return href(agent, scope)
    return href(agent) if scope == "overall" else None


def records(where: Path, paper_ids: bool = False) -> list[dialogues.Record]:
    return dialogues.mile(read_table(where / TURNS), read_table(where / DIALOGUES), optional(where / "scores.parquet"))

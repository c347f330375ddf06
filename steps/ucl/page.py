"""UCL-Bench's HTML page (its registration's `page` and `dialogue_reader`): the win rate and hint score charts per
task, and the transcript viewer's records of a run (tasks by the paper's ids on the page)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from steps.paths import DIALOGUES, TURNS
from steps.reports.html import dialogues
from steps.reports.html.viewer import optional, read_table
from steps.ucl.tasks import TASKS


def charts(df: pd.DataFrame, chart: Callable[..., str]) -> list[str]:
    scope = lambda r: r.scope  # noqa: E731
    out = []
    for table, m in (("win_rate", "win_rate"), ("hint_score", "hint_score")):
        tasks = list(dict.fromkeys(df[(df.table == table) & (df.metric == m)].scope))
        out.append(chart(f"UCL-Bench {m.replace('_', ' ')} per task", table, tasks, scope, metric=m))
    return out


def records(where: Path, paper_ids: bool = False) -> list[dialogues.Record]:
    return dialogues.ucl(
        read_table(where / TURNS),
        read_table(where / DIALOGUES),
        optional(where / "verdicts.parquet"),
        optional(where / "hint_scores.parquet"),
        {t.key: t.id for t in TASKS} if paper_ids else {},
    )

"""J1-EVAL's HTML page (its registration's `page` and `dialogue_reader`): the environments in the paper's order,
one chart of the ten metrics per environment, and the transcript viewer's records of a run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from steps.j1.envs.catalog import codes
from steps.paths import DIALOGUES, TURNS
from steps.reports.html import dialogues
from steps.reports.html.viewer import optional, read_table


def scope_order() -> tuple[str, ...]:
    """The J1 environments in the paper's order (their registrations): KQ, LC, CD, DD, CI, CR."""
    return codes()


def charts(df: pd.DataFrame, chart: Callable[..., str]) -> list[str]:
    t3 = df[df.table == "table3"]
    metric = lambda r: r.metric  # noqa: E731
    out = []
    for env in codes():
        metrics = list(dict.fromkeys(t3[t3.scope == env].metric))
        out.append(chart(f"J1 {env}: metrics (×100)", "table3", metrics, metric, scope=env))
    return out


def records(where: Path, paper_ids: bool = False) -> list[dialogues.Record]:
    deliverables = read_table(where / DIALOGUES)
    causes = optional(where / "failure_causes.parquet")  # written by the judge stage
    if causes is not None:
        deliverables = deliverables.merge(causes[["instance_id", "failure_causes"]], on="instance_id", how="left")
    return dialogues.j1(read_table(where / TURNS), deliverables, optional(where / "scores.parquet"))

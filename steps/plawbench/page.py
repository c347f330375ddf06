"""PLawBench's HTML page (its registration's `page` and `dialogue_reader`): the task types' and T2 dimensions'
charts, T1 cells linked to the viewer, and the transcript viewer's records of a run (its responses, multi-turn
consultations with their turns)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from steps.paths import TURNS
from steps.reports.html import dialogues
from steps.reports.html.viewer import optional, read_table
from steps.runs import read_run_if_any


def charts(df: pd.DataFrame, chart: Callable[..., str]) -> list[str]:
    metric = lambda r: r.metric  # noqa: E731
    return [
        chart("PLawBench by task type", "table3", ["T1", "T2", "T3", "Overall"], metric),
        chart("PLawBench T2 dimensions", "table3", ["T2/Facts", "T2/Statute", "T2/Reasoning", "T2/Conclusion"], metric),
    ]


def link(href: Callable[..., str], envs: set[str], agent: str, scope: str, metric: str) -> str | None:
    """T1 (consultation) cells link to the agent's consultations, the multi-turn ones to those."""
    return href(agent, "multiturn" if scope == "consultation_multiturn" else "") if metric == "T1" else None


def records(where: Path, paper_ids: bool = False) -> list[dialogues.Record]:
    record = read_run_if_any(where)
    run = record.spec if record is not None else {}
    turns = optional(where / TURNS)
    return dialogues.plawbench(
        read_table(where / "responses.parquet"),
        turns if turns is not None else pd.DataFrame(columns=["instance_id", "turn_index"]),
        optional(where / "judgements.parquet"),
        optional(where / "item_scores.parquet"),
        agent_model=run.get("model", ""),
        environment_model=(run.get("multiturn") or {}).get("environment", ""),
    )

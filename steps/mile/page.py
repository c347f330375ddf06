"""MILE's HTML page (its registration's `page` and `dialogue_reader`): the goal and interaction dimensions'
charts, cells linked to the viewer, and the transcript viewer's records of a run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from steps.paths import DIALOGUES, TURNS
from steps.reports.html.dialogues import (
    Record,
    cut,
    file_id,
    group_rows,
    mean_score,
    number,
    text_of,
    turn_row,
)
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


def records(where: Path, paper_ids: bool = False) -> list[Record]:
    return dialogue_records(
        read_table(where / TURNS), read_table(where / DIALOGUES), optional(where / "scores.parquet")
    )


def dialogue_records(turns: pd.DataFrame, deliverables: pd.DataFrame, scores: pd.DataFrame | None) -> list[Record]:
    """MILE: a run's turns, deliverables (the complaint) and scores. Headline: the goal dimensions' mean (×100)."""
    by_turns, by_scores = group_rows(turns, "instance_id", "turn_index"), group_rows(scores, "instance_id")
    out = []
    for d in deliverables.to_dict("records"):
        iid = d["instance_id"]
        rows = by_turns.get(iid, [])
        score_rows, goal = [], []
        for r in by_scores.get(iid, []):
            turn = "" if r["turn"] is pd.NA or pd.isna(r["turn"]) else f" (turn {int(r['turn'])})"
            reason = (
                text_of(r["failure"])
                or text_of(r["error"])
                or " ".join(x for x in (text_of(r["reason"]), text_of(r["detail"])) if x)
            )
            score_rows.append(
                [f"{r['stage']} {r['metric']}{turn}", number(r["scaled"]), text_of(r["judge"]), cut(reason)]
            )
            if r["stage"] == "goal" and not r["metric"].endswith("-norm") and r["metric"] not in ("CLI", "DEF"):
                headline = number(r["scaled"])
                goal.append(None if headline is None else headline / 100)
        out.append(
            {
                "id": file_id(iid),
                "iid": iid,
                "agent": d["agent"],
                "env": text_of(d["law_reason"]),
                "title": iid,
                "end": text_of(d["ended_by"]) or ("failed" if text_of(d["failure"]) else ""),
                "score": mean_score(goal),
                "causes": "",
                "turns": [
                    turn_row(t, t["speaker"], text_of(t["addressee"]), f"turn {t['paper_turn']}", text_of(t["model"]))
                    for t in rows
                ],
                "scores": score_rows,
                "result": {"title": "complaint", "text": text_of(d["deliverable"])},
            }
        )
    return out

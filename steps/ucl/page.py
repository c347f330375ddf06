"""UCL-Bench's HTML page (its registration's `page` and `dialogue_reader`): the win rate and hint score charts per
task, and the transcript viewer's records of a run (tasks by the paper's ids on the page)."""

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
from steps.ucl.tasks import TASKS


def charts(df: pd.DataFrame, chart: Callable[..., str]) -> list[str]:
    scope = lambda r: r.scope  # noqa: E731
    out = []
    for table, m in (("win_rate", "win_rate"), ("hint_score", "hint_score")):
        tasks = list(dict.fromkeys(df[(df.table == table) & (df.metric == m)].scope))
        out.append(chart(f"UCL-Bench {m.replace('_', ' ')} per task", table, tasks, scope, metric=m))
    return out


def records(where: Path, paper_ids: bool = False) -> list[Record]:
    return dialogue_records(
        read_table(where / TURNS),
        read_table(where / DIALOGUES),
        optional(where / "verdicts.parquet"),
        optional(where / "hint_scores.parquet"),
        {t.key: t.id for t in TASKS} if paper_ids else {},
    )


def dialogue_records(
    turns: pd.DataFrame,
    dialogues: pd.DataFrame,
    verdicts: pd.DataFrame | None,
    hints: pd.DataFrame | None,
    task_ids: dict[str, str],
) -> list[Record]:
    """UCL-Bench: a run's turns and dialogues with the pairwise verdicts (both orders) and the hint score.

    Headline: the dialogue's points against the reference over its valid verdicts (×100: 100 won both orders).
    """
    by_turns = group_rows(turns, "instance_id", "turn_index")
    by_verdicts, by_hints = group_rows(verdicts, "item_id"), group_rows(hints, "item_id")
    out = []
    for d in dialogues.to_dict("records"):
        iid = d["instance_id"]
        rows = by_turns.get(iid, [])
        score_rows, points = [], []
        for r in by_verdicts.get(iid, []):
            reason = text_of(r["failure"]) or text_of(r["error"]) or text_of(r["raw"])
            score_rows.append(
                [
                    f"vs {r['reference']} ({r['order']}): {text_of(r['outcome'])}",
                    number(r["value"]),
                    text_of(r["judge"]),
                    cut(reason),
                ]
            )
            if not text_of(r["failure"]):
                points.append(number(r["value"]))
        for r in by_hints.get(iid, []):
            reason = text_of(r["failure"]) or f"met {r['met']}, partial {r['partial']} of {r['items']}; " + text_of(
                r["raw"]
            )
            score_rows.append(["hint score", number(r["value"]), text_of(r["judge"]), cut(reason)])
        out.append(
            {
                "id": file_id(iid),
                "iid": iid,
                "agent": d["agent"],
                "env": task_ids.get(d["task"], d["task"]),
                "title": f"{iid} ({' '.join(x for x in (task_ids.get(d['task'], ''), d['task']) if x)})",
                "end": text_of(d["ended_by"]) or ("failed" if text_of(d["failure"]) else ""),
                "score": mean_score(points),
                "causes": "",
                "turns": [
                    turn_row(
                        t, t["speaker"], "assistant" if t["speaker"] == "user" else "user", "", text_of(t["model"])
                    )
                    for t in rows
                ],
                "scores": score_rows,
                "result": {"title": "", "text": ""},
            }
        )
    return out

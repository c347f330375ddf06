"""PLawBench's HTML page (its registration's `page` and `dialogue_reader`): the task types' and T2 dimensions'
charts, T1 cells linked to the viewer, and the transcript viewer's records of a run (its responses, multi-turn
consultations with their turns)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from steps.paths import TURNS
from steps.reports.html.dialogues import (
    Record,
    cut,
    file_id,
    group_rows,
    number,
    text_of,
    turn_row,
    with_trace,
)
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


def records(where: Path, paper_ids: bool = False) -> list[Record]:
    record = read_run_if_any(where)
    run = record.spec if record is not None else {}
    turns = optional(where / TURNS)
    return dialogue_records(
        read_table(where / "responses.parquet"),
        turns if turns is not None else pd.DataFrame(columns=["instance_id", "turn_index"]),
        optional(where / "judgements.parquet"),
        optional(where / "item_scores.parquet"),
        agent_model=run.get("model", ""),
        environment_model=(run.get("multiturn") or {}).get("environment", ""),
    )


def dialogue_records(
    responses: pd.DataFrame,
    turns: pd.DataFrame,
    judgements: pd.DataFrame | None,
    item_scores: pd.DataFrame | None,
    *,
    agent_model: str,
    environment_model: str,
) -> list[Record]:
    """PLawBench consultations (T1): the single-turn answer (the task prompt and the agent's questions) or the
    multi-turn dialogue with the simulated client, with the judge's per-item points. Headline: awarded / max."""
    cons = responses[responses.category == "consultation"]
    by_turns = group_rows(turns, "instance_id", "turn_index")
    judged, items = group_rows(judgements, ["item_id", "variant"]), group_rows(item_scores, ["item_id", "variant"])
    models = {"lawyer": agent_model, "client": environment_model}
    out = []
    for d in cons.to_dict("records"):
        k = (d["item_id"], d["variant"])
        if d["variant"] == "multiturn":
            rows = by_turns.get(d["item_id"], [])
            shown = [
                turn_row(
                    t,
                    t["speaker"],
                    "client" if t["speaker"] == "lawyer" else "lawyer",
                    "",
                    models.get(t["speaker"], ""),
                )
                for t in rows
            ]
        else:
            shown = [
                ["user", "lawyer", "", "", "utterance", text_of(d["prompt"]), ""],
                with_trace(
                    [
                        "lawyer",
                        "user",
                        "",
                        agent_model,
                        "utterance",
                        text_of(d["response"]),
                        f"failed call: {d['failure']}" if text_of(d["failure"]) else "",
                    ],
                    d.get("reasoning"),
                ),
            ]
        score_rows, headline = [], None
        for r in judged.get(k, [])[:1]:
            value = number(r["value"])
            headline = None if value is None else round(100 * value, 1)
            reason = text_of(r["failure"]) or text_of(r["error"]) or f"awarded {r['awarded']:g} of {r['max_points']:g}"
            score_rows.append(["total", headline, text_of(r["judge"]), cut(reason)])
        for r in items.get(k, []):
            name = r["rubric_id"] + (f" [{r['group']}]" if text_of(r["group"]) else "")
            score_rows.append([name, number(r["awarded"]), f"of {r['points']:g}", cut(text_of(r["justification"]))])
        iid = f"{d['item_id']}/{d['variant']}"
        out.append(
            {
                "id": file_id(iid),
                "iid": d["item_id"],
                "agent": d["agent"],
                "env": d["variant"],
                "title": iid,
                "end": text_of(d["ended_by"]) or ("failed" if text_of(d["failure"]) else "answered"),
                "score": headline,
                "causes": "",
                "turns": shown,
                "scores": score_rows,
                "result": {"title": "", "text": ""},
            }
        )
    return out

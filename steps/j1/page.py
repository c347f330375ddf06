"""J1-EVAL's HTML page (its registration's `page` and `dialogue_reader`): the environments in the paper's order,
one chart of the ten metrics per environment, the transcript viewer's records of a run, and the instances'
provenance paragraph of reports/j1.md (the page's preface; its short form under `jurisflow results`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from steps.j1.envs.catalog import codes
from steps.j1.envs.provenance import brief, report_paragraph
from steps.paths import DIALOGUES, TURNS
from steps.reports.html.dialogues import (
    Record,
    cut,
    file_id,
    group_rows,
    mean_score,
    number,
    run_turn,
    text_of,
)
from steps.reports.html.viewer import optional, read_table


def preface(markdown: str) -> str | None:
    """The provenance paragraph of reports/j1.md (`markdown`, its text), shown above the page's tables."""
    return report_paragraph(markdown)


def results_note(markdown: str) -> str | None:
    """The provenance paragraph's short form, for `jurisflow results` (None: a report without one)."""
    paragraph = report_paragraph(markdown)
    return None if paragraph is None else f"instances {brief(paragraph)} (reports/j1.md says how they differ)"


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


def records(where: Path, paper_ids: bool = False) -> list[Record]:
    deliverables = read_table(where / DIALOGUES)
    causes = optional(where / "failure_causes.parquet")  # written by the judge stage
    if causes is not None:
        deliverables = deliverables.merge(causes[["instance_id", "failure_causes"]], on="instance_id", how="left")
    return dialogue_records(read_table(where / TURNS), deliverables, optional(where / "scores.parquet"))


def dialogue_records(turns: pd.DataFrame, deliverables: pd.DataFrame, scores: pd.DataFrame | None) -> list[Record]:
    """J1's six environments: turns.parquet, dialogues.parquet and scores.parquet of one agent's run.

    Headline score: the mean of the dialogue's top-level scored metrics (×100), III-4 (lower is better) left out.
    """
    by_turns, by_scores = group_rows(turns, "instance_id", "turn_index"), group_rows(scores, "instance_id")
    out = []
    for d in deliverables.to_dict("records"):
        iid = d["instance_id"]
        rows = by_turns.get(iid, [])
        score_rows, headline = [], []
        for r in by_scores.get(iid, []):
            name = r["metric"] + (f"/{r['component']}" if text_of(r["component"]) else "")
            reason = text_of(r["failure"]) or text_of(r["error"]) or text_of(r["evidence"])
            score_rows.append([name, number(r["value"]), text_of(r["judge"]), cut(reason)])
            if not text_of(r["component"]) and r["metric"] != "III-4" and r["status"] == "scored":
                headline.append(number(r["value"]))
        found = d.get("failure_causes")  # a list; missing (NaN) when the run is not judged yet
        causes = ", ".join(found) if hasattr(found, "__len__") and not isinstance(found, str) else ""
        out.append(
            {
                "id": file_id(iid),
                "iid": iid,
                "agent": d["agent"],
                "env": d["scenario"],
                "title": iid,
                "end": text_of(d["ended_by"]) or ("failed" if text_of(d["failure"]) else ""),
                "score": mean_score(headline),
                "causes": causes,
                "turns": [run_turn(t) for t in rows],
                "scores": score_rows,
                "result": {
                    "title": f"deliverable: {d['deliverable_kind']}"
                    + (" (forced after the turn cap)" if d["forced"] else ""),
                    "text": text_of(d["deliverable"]),
                },
            }
        )
    return out

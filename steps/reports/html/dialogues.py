"""Every simulated dialogue as one compact record for the transcript viewer (and `jurisflow show`).

A record: `id` (the instance or item id as in transcript file names: every run of characters other than
letters, digits, `.`, `-` and `_` becomes `_`), `iid` (the id in the tables), `agent`, `env` (J1 environment,
UCL task id, MILE cause of action, PLawBench variant), `title`, `end` (why the dialogue ended), `score` (one
headline number 0–100 the filters use, or None when nothing was scored), `turns` (lists of speaker,
addressee, stage, model, kind, text, note), `scores` (lists of name, value, judge, reason or evidence) and
`result` (the deliverable: title and text). Functions take the run's tables and return records; no I/O.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pandas as pd

Record = dict[str, Any]
EVIDENCE_CHARS = 600  # judge reasons and evidence are cut to this many characters in the viewer


def file_id(instance_id: str) -> str:
    """The id as it appears in file names (reports/transcripts/<agent>/<id>.md)."""
    return re.sub(r"[^\w.-]+", "_", instance_id)


def _s(value: object) -> str:
    return value if isinstance(value, str) else ""


def _v(value: float | None) -> float | None:
    if value is None or value is pd.NA:
        return None
    f = float(value)
    return None if math.isnan(f) else round(f, 4)


def _cut(text: str) -> str:
    return text if len(text) <= EVIDENCE_CHARS else text[:EVIDENCE_CHARS] + "…"


def _mean(values: list[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return round(100 * sum(kept) / len(kept), 1) if kept else None


def _group(df: pd.DataFrame | None, key: str | list[str], order: str | None = None) -> dict[Any, list[dict]]:
    """Rows grouped by key, as dicts (one pass over the table: per-group DataFrame slicing is slow)."""
    out: dict[Any, list[dict]] = {}
    if df is None or df.empty:
        return out
    if order:
        df = df.sort_values([key, order] if isinstance(key, str) else [*key, order], kind="stable")
    for r in df.to_dict("records"):
        out.setdefault(r[key] if isinstance(key, str) else tuple(r[k] for k in key), []).append(r)
    return out


def _note(turn: dict) -> str:
    return f"failed call: {turn['failure']}" if isinstance(turn.get("failure"), str) else ""


def _shown(turn: dict, speaker: str, addressee: str, stage: str, model: str) -> list[str]:
    """A turn as the viewer lists it: speaker, addressee, stage, model, kind, text, note."""
    return [speaker, addressee, stage, model, turn["kind"], _s(turn["text"]), _note(turn)]


def _run_turn(turn: dict) -> list[str]:
    """A row of the shared turns table (steps/schemas/runs.py) as the viewer lists it."""
    return _shown(turn, turn["speaker_label"], _s(turn["addressee"]), _s(turn["stage"]), _s(turn["model"]))


def j1(turns: pd.DataFrame, deliverables: pd.DataFrame, scores: pd.DataFrame | None) -> list[Record]:
    """J1's six environments: turns.parquet, dialogues.parquet and scores.parquet of one agent's run.

    Headline score: the mean of the dialogue's top-level scored metrics (×100), III-4 (lower is better) left out.
    """
    by_turns, by_scores = _group(turns, "instance_id", "turn_index"), _group(scores, "instance_id")
    out = []
    for d in deliverables.to_dict("records"):
        iid = d["instance_id"]
        rows = by_turns.get(iid, [])
        score_rows, headline = [], []
        for r in by_scores.get(iid, []):
            name = r["metric"] + (f"/{r['component']}" if _s(r["component"]) else "")
            reason = _s(r["failure"]) or _s(r["error"]) or _s(r["evidence"])
            score_rows.append([name, _v(r["value"]), _s(r["judge"]), _cut(reason)])
            if not _s(r["component"]) and r["metric"] != "III-4" and r["status"] == "scored":
                headline.append(_v(r["value"]))
        found = d.get("failure_causes")  # a list; missing (NaN) when the run is not judged yet
        causes = ", ".join(found) if hasattr(found, "__len__") and not isinstance(found, str) else ""
        out.append(
            {
                "id": file_id(iid),
                "iid": iid,
                "agent": d["agent"],
                "env": d["scenario"],
                "title": iid,
                "end": _s(d["ended_by"]) or ("failed" if _s(d["failure"]) else ""),
                "score": _mean(headline),
                "causes": causes,
                "turns": [_run_turn(t) for t in rows],
                "scores": score_rows,
                "result": {
                    "title": f"deliverable: {d['deliverable_kind']}"
                    + (" (forced after the turn cap)" if d["forced"] else ""),
                    "text": _s(d["deliverable"]),
                },
            }
        )
    return out


def mile(turns: pd.DataFrame, deliverables: pd.DataFrame, scores: pd.DataFrame | None) -> list[Record]:
    """MILE: a run's turns, deliverables (the complaint) and scores. Headline: the goal dimensions' mean (×100)."""
    by_turns, by_scores = _group(turns, "instance_id", "turn_index"), _group(scores, "instance_id")
    out = []
    for d in deliverables.to_dict("records"):
        iid = d["instance_id"]
        rows = by_turns.get(iid, [])
        score_rows, goal = [], []
        for r in by_scores.get(iid, []):
            turn = "" if r["turn"] is pd.NA or pd.isna(r["turn"]) else f" (turn {int(r['turn'])})"
            reason = _s(r["failure"]) or _s(r["error"]) or " ".join(x for x in (_s(r["reason"]), _s(r["detail"])) if x)
            score_rows.append([f"{r['stage']} {r['metric']}{turn}", _v(r["scaled"]), _s(r["judge"]), _cut(reason)])
            if r["stage"] == "goal" and not r["metric"].endswith("-norm") and r["metric"] not in ("CLI", "DEF"):
                headline = _v(r["scaled"])
                goal.append(None if headline is None else headline / 100)
        out.append(
            {
                "id": file_id(iid),
                "iid": iid,
                "agent": d["agent"],
                "env": _s(d["law_reason"]),
                "title": iid,
                "end": _s(d["ended_by"]) or ("failed" if _s(d["failure"]) else ""),
                "score": _mean(goal),
                "causes": "",
                "turns": [
                    _shown(t, t["speaker"], _s(t["addressee"]), f"turn {t['paper_turn']}", _s(t["model"])) for t in rows
                ],
                "scores": score_rows,
                "result": {"title": "complaint", "text": _s(d["deliverable"])},
            }
        )
    return out


def ucl(
    turns: pd.DataFrame,
    dialogues: pd.DataFrame,
    verdicts: pd.DataFrame | None,
    hints: pd.DataFrame | None,
    task_ids: dict[str, str],
) -> list[Record]:
    """UCL-Bench: a run's turns and dialogues with the pairwise verdicts (both orders) and the hint score.

    Headline: the dialogue's points against the reference over its valid verdicts (×100: 100 won both orders).
    """
    by_turns = _group(turns, "instance_id", "turn_index")
    by_verdicts, by_hints = _group(verdicts, "item_id"), _group(hints, "item_id")
    out = []
    for d in dialogues.to_dict("records"):
        iid = d["instance_id"]
        rows = by_turns.get(iid, [])
        score_rows, points = [], []
        for r in by_verdicts.get(iid, []):
            reason = _s(r["failure"]) or _s(r["error"]) or _s(r["raw"])
            score_rows.append(
                [
                    f"vs {r['reference']} ({r['order']}): {_s(r['outcome'])}",
                    _v(r["value"]),
                    _s(r["judge"]),
                    _cut(reason),
                ]
            )
            if not _s(r["failure"]):
                points.append(_v(r["value"]))
        for r in by_hints.get(iid, []):
            reason = _s(r["failure"]) or f"met {r['met']}, partial {r['partial']} of {r['items']}; " + _s(r["raw"])
            score_rows.append(["hint score", _v(r["value"]), _s(r["judge"]), _cut(reason)])
        out.append(
            {
                "id": file_id(iid),
                "iid": iid,
                "agent": d["agent"],
                "env": task_ids.get(d["task"], d["task"]),
                "title": f"{iid} ({' '.join(x for x in (task_ids.get(d['task'], ''), d['task']) if x)})",
                "end": _s(d["ended_by"]) or ("failed" if _s(d["failure"]) else ""),
                "score": _mean(points),
                "causes": "",
                "turns": [
                    _shown(t, t["speaker"], "assistant" if t["speaker"] == "user" else "user", "", _s(t["model"]))
                    for t in rows
                ],
                "scores": score_rows,
                "result": {"title": "", "text": ""},
            }
        )
    return out


def plawbench(
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
    by_turns = _group(turns, "instance_id", "turn_index")
    judged, items = _group(judgements, ["item_id", "variant"]), _group(item_scores, ["item_id", "variant"])
    models = {"lawyer": agent_model, "client": environment_model}
    out = []
    for d in cons.to_dict("records"):
        k = (d["item_id"], d["variant"])
        if d["variant"] == "multiturn":
            rows = by_turns.get(d["item_id"], [])
            shown = [
                _shown(
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
                ["user", "lawyer", "", "", "utterance", _s(d["prompt"]), ""],
                [
                    "lawyer",
                    "user",
                    "",
                    agent_model,
                    "utterance",
                    _s(d["response"]),
                    f"failed call: {d['failure']}" if _s(d["failure"]) else "",
                ],
            ]
        score_rows, headline = [], None
        for r in judged.get(k, [])[:1]:
            value = _v(r["value"])
            headline = None if value is None else round(100 * value, 1)
            reason = _s(r["failure"]) or _s(r["error"]) or f"awarded {r['awarded']:g} of {r['max_points']:g}"
            score_rows.append(["total", headline, _s(r["judge"]), _cut(reason)])
        for r in items.get(k, []):
            name = r["rubric_id"] + (f" [{r['group']}]" if _s(r["group"]) else "")
            score_rows.append([name, _v(r["awarded"]), f"of {r['points']:g}", _cut(_s(r["justification"]))])
        iid = f"{d['item_id']}/{d['variant']}"
        out.append(
            {
                "id": file_id(iid),
                "iid": d["item_id"],
                "agent": d["agent"],
                "env": d["variant"],
                "title": iid,
                "end": _s(d["ended_by"]) or ("failed" if _s(d["failure"]) else "answered"),
                "score": headline,
                "causes": "",
                "turns": shown,
                "scores": score_rows,
                "result": {"title": "", "text": ""},
            }
        )
    return out


def generic(turns: pd.DataFrame, dialogues: pd.DataFrame) -> list[Record]:
    """Any dialogue benchmark's run tables (turns.parquet, dialogues.parquet), without scores: what the viewer shows
    of a benchmark that has no record builder of its own (the four above add their judges' scores)."""
    by_turns = _group(turns, "instance_id", "turn_index")
    return [
        {
            "id": file_id(d["instance_id"]),
            "iid": d["instance_id"],
            "agent": d["agent"],
            "env": d["scenario"],
            "title": d["instance_id"],
            "end": _s(d["ended_by"]) or ("failed" if _s(d["failure"]) else ""),
            "score": None,
            "causes": "",
            "turns": [_run_turn(t) for t in by_turns.get(d["instance_id"], [])],
            "scores": [],
            "result": {"title": f"deliverable: {d['deliverable_kind']}", "text": _s(d["deliverable"])},
        }
        for d in dialogues.to_dict("records")
    ]


# Characters that a text could use to end or comment out the <script> element the JSON sits in (`</script>`,
# `<!--<script>`, `]]>`), to be read as an entity, or (U+2028/2029) to end a line in older JavaScript: in the JSON
# they are \u escapes, which JSON.parse turns back into the same characters.
_SCRIPT_SAFE = str.maketrans({c: f"\\u{ord(c):04x}" for c in "<>&\u2028\u2029"})


def to_json(records: list[Record]) -> str:
    """Compact, deterministic JSON safe to embed in a <script> element: no reply text can end or comment out the
    element, whatever it holds (`_SCRIPT_SAFE`)."""
    return json.dumps(records, ensure_ascii=False, separators=(",", ":"), sort_keys=True).translate(_SCRIPT_SAFE)

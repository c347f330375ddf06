"""Every simulated dialogue as one compact record for the transcript viewer (and `jurisflow show`).

A record: `id` (the instance or item id as in transcript file names: every run of characters other than
letters, digits, `.`, `-` and `_` becomes `_`), `iid` (the id in the tables), `agent`, `env` (J1 environment,
UCL task id, MILE cause of action, PLawBench variant), `title`, `end` (why the dialogue ended), `score` (one
headline number 0–100 the filters use, or None when nothing was scored), `turns` (lists of speaker,
addressee, stage, model, kind, text, note and, when the reply had one, its reasoning trace, shown folded),
`scores` (lists of name, value, judge, reason or evidence) and `result` (the deliverable: title and text).
Functions take the run's tables and return records; no I/O. A benchmark's own builder (steps/<benchmark>/page.py,
named by its registration's `dialogue_reader`) uses the helpers here.
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


def text_of(value: object) -> str:
    return value if isinstance(value, str) else ""


def number(value: float | None) -> float | None:
    if value is None or value is pd.NA:
        return None
    f = float(value)
    return None if math.isnan(f) else round(f, 4)


def cut(text: str) -> str:
    return text if len(text) <= EVIDENCE_CHARS else text[:EVIDENCE_CHARS] + "…"


def mean_score(values: list[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return round(100 * sum(kept) / len(kept), 1) if kept else None


def group_rows(df: pd.DataFrame | None, key: str | list[str], order: str | None = None) -> dict[Any, list[dict]]:
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


def with_trace(row: list[str], reasoning: object) -> list[str]:
    """A viewer row with the reply's reasoning trace as an eighth field when it has one (shown folded)."""
    trace = text_of(reasoning)
    return [*row, trace] if trace else row


def turn_row(turn: dict, speaker: str, addressee: str, stage: str, model: str) -> list[str]:
    """A turn as the viewer lists it: speaker, addressee, stage, model, kind, text, note, and the reasoning trace
    when the reply had one (turns.parquet's `reasoning`)."""
    row = [speaker, addressee, stage, model, turn["kind"], text_of(turn["text"]), _note(turn)]
    return with_trace(row, turn.get("reasoning"))


def run_turn(turn: dict) -> list[str]:
    """A row of the shared turns table (steps/schemas/runs.py) as the viewer lists it."""
    return turn_row(
        turn, turn["speaker_label"], text_of(turn["addressee"]), text_of(turn["stage"]), text_of(turn["model"])
    )


def generic(turns: pd.DataFrame, dialogues: pd.DataFrame) -> list[Record]:
    """Any dialogue benchmark's run tables (turns.parquet, dialogues.parquet), without scores: what the viewer shows
    of a benchmark that has no record builder of its own (a registration's `dialogue_reader` adds its judges'
    scores: steps/<benchmark>/page.py)."""
    by_turns = group_rows(turns, "instance_id", "turn_index")
    return [
        {
            "id": file_id(d["instance_id"]),
            "iid": d["instance_id"],
            "agent": d["agent"],
            "env": d["scenario"],
            "title": d["instance_id"],
            "end": text_of(d["ended_by"]) or ("failed" if text_of(d["failure"]) else ""),
            "score": None,
            "causes": "",
            "turns": [run_turn(t) for t in by_turns.get(d["instance_id"], [])],
            "scores": [],
            "result": {"title": f"deliverable: {d['deliverable_kind']}", "text": text_of(d["deliverable"])},
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

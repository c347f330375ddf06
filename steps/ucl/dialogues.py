"""From engine dialogues to the run tables: one row per turn, one row per dialogue with its transcript.

The transcript is what the judge reads (spec ucl-bench §3.3): one line per utterance, `用户：` or `AI助手：`
(full-width colons) before it. The user's closing message (the one holding 咨询结束) is not part of it, as in
the paper; its text stays in the turns table, and any words besides the marker are kept in
`closing_extra` for audit. `rounds` is the number of assistant replies (1–3), the paper's dialogue rounds.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from steps.simulate import Dialogue, EndReason, Turn
from steps.ucl.scenario import END, UCL
from steps.ucl.speaking import task_key

SPEAKER_LABELS = {name: role.label for name, role in UCL.roles.items()}
TURN_COLUMNS = [
    "run_id",
    "agent",
    "item_id",
    "turn_index",
    "exchange",
    "speaker",
    "kind",
    "text",
    "model",
    "call_key",
    "prompt_tokens",
    "completion_tokens",
    "failure",
]
DIALOGUE_COLUMNS = [
    "run_id",
    "agent",
    "item_id",
    "task",
    "ended_by",
    "rounds",
    "utterances",
    "transcript",
    "first_query",
    "closing_extra",
    "failure",
]


def _spoken(d: Dialogue) -> tuple[list[Turn], Turn | None]:
    """The utterances the judge reads, and the closing user message left out of them (if any)."""
    said = d.utterances()
    if d.ended_by is EndReason.MARKER and said and said[-1].speaker == "user" and END in said[-1].text:
        return said[:-1], said[-1]
    return said, None


def transcript(d: Dialogue) -> str:
    said, _ = _spoken(d)
    return "\n".join(f"{SPEAKER_LABELS[t.speaker]}：{t.text}" for t in said)


def _failure(d: Dialogue) -> str | None:
    if d.ended_by is not EndReason.CALL_FAILED:
        return None
    failed = next((t for t in reversed(d.turns) if t.failure), None)
    return f"{failed.speaker}: {failed.failure}" if failed else "a model call failed"


def dialogue_row(d: Dialogue, *, run_id: str, agent: str) -> dict[str, Any]:
    said, closing = _spoken(d)
    extra = closing.text.replace(END, "").strip(" \n。！!，,") if closing else ""
    return {
        "run_id": run_id,
        "agent": agent,
        "item_id": d.instance_id,
        "task": task_key(d.instance_id),
        "ended_by": d.ended_by.value if d.ended_by else "",
        "rounds": sum(t.speaker == "assistant" for t in said),
        "utterances": len(said),
        "transcript": transcript(d),
        "first_query": next((t.text for t in said if t.speaker == "user"), ""),
        "closing_extra": extra or None,
        "failure": _failure(d),
    }


def turn_rows(d: Dialogue, *, run_id: str, agent: str) -> list[dict[str, Any]]:
    return [
        {
            "run_id": run_id,
            "agent": agent,
            "item_id": d.instance_id,
            "turn_index": t.turn_index,
            "exchange": t.exchange,
            "speaker": t.speaker,
            "kind": t.kind.value,
            "text": t.text,
            "model": t.model,
            "call_key": t.call_key,
            "prompt_tokens": t.prompt_tokens,
            "completion_tokens": t.completion_tokens,
            "failure": t.failure,
        }
        for t in d.turns
    ]


def run_tables(dialogues: list[Dialogue], *, run_id: str, agent: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(turns, dialogues) frames of one run, in the dialogues' order."""
    turns = [r for d in dialogues for r in turn_rows(d, run_id=run_id, agent=agent)]
    rows = [dialogue_row(d, run_id=run_id, agent=agent) for d in dialogues]
    return pd.DataFrame(turns, columns=TURN_COLUMNS), pd.DataFrame(rows, columns=DIALOGUE_COLUMNS)

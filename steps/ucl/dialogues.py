"""From engine dialogues to the run tables: one row per turn, one row per dialogue with its transcript.

The transcript is what the judge reads (spec ucl-bench §3.3): one line per utterance, `用户：` or `AI助手：`
(full-width colons) before it. The user's closing message (the one holding 咨询结束) is not part of it, as in
the paper; its text stays in the turns table, and any words besides the marker are kept in
`closing_extra` for audit. `rounds` is the number of assistant replies (1–3), the paper's dialogue rounds.
The rows are built by `steps.simulate.records`; these are UCL's own columns of the dialogue row.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from steps.simulate import Dialogue, EndReason, Turn
from steps.simulate.records import RunLabel, run_tables
from steps.ucl.scenario import END, UCL
from steps.ucl.speaking import task_key

SPEAKER_LABELS = {name: role.label for name, role in UCL.roles.items()}
COLUMNS = ["task", "rounds", "transcript", "first_query", "closing_extra"]


def _spoken(d: Dialogue) -> tuple[list[Turn], Turn | None]:
    """The utterances the judge reads, and the closing user message left out of them (if any)."""
    said = d.utterances()
    if d.ended_by is EndReason.MARKER and said and said[-1].speaker == "user" and END in said[-1].text:
        return said[:-1], said[-1]
    return said, None


def transcript(d: Dialogue) -> str:
    said, _ = _spoken(d)
    return "\n".join(f"{SPEAKER_LABELS[t.speaker]}：{t.text}" for t in said)


def dialogue_columns(d: Dialogue) -> dict[str, Any]:
    """UCL's columns of one dialogue row."""
    said, closing = _spoken(d)
    extra = closing.text.replace(END, "").strip(" \n。！!，,") if closing else ""
    return {
        "task": task_key(d.instance_id),
        "rounds": sum(t.speaker == "assistant" for t in said),
        "transcript": transcript(d),
        "first_query": next((t.text for t in said if t.speaker == "user"), ""),
        "closing_extra": extra or None,
    }


def ucl_tables(dialogues: list[Dialogue], run: RunLabel) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(turns, dialogues) frames of one run, in the dialogues' order."""
    return run_tables(dialogues, lambda _: UCL, run, extend=dialogue_columns, extra_columns=COLUMNS)

"""MILE's part of the run tables (`steps.simulate.records` builds them): its turn numbers and its dialogue columns.

Turn numbers are the paper's: 0 for the fixed greetings, 1…T for the client–lawyer turns, T + 1 for the
complaint (engine exchange e is turn e − 1). The dialogue row keeps what the evaluation and the SFT export
need: T, revision and blurring counts, supervisor failures, the persona, and the lawyer's final view (its system
prompt, the whole interview and the drafting request) as chat messages.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from steps.llm import Reply
from steps.mile.instances import persona
from steps.simulate import Dialogue, EndReason, Scenario, Turn, TurnKind
from steps.simulate.engine import Engine
from steps.simulate.instance import Instance
from steps.simulate.model import SpeakCall
from steps.simulate.records import RunLabel, run_tables

COLUMNS = [
    "law_reason",
    "plaintiff_type",
    "turns",
    "client_revisions",
    "lawyer_revisions",
    "blurred",
    "unsupervised",
    "persona",
    "lawyer_view",
]


def paper_turns(_: Scenario, turns: list[Turn]) -> dict[str, list[Any]]:
    """The `paper_turn` of every turn: the exchange − 1, the forced complaint its own exchange."""
    return {"paper_turn": [t.exchange if t.kind is TurnKind.DELIVERABLE else t.exchange - 1 for t in turns]}


async def _no_model(call: SpeakCall) -> Reply:
    raise RuntimeError(f"a view calls no model (asked for {call.role})")


def lawyer_view(scenario: Scenario, instance: Instance, dialogue: Dialogue) -> list[dict[str, str]]:
    """The messages of the lawyer's drafting call: system prompt, the interview, the drafting request."""
    engine = Engine(scenario, instance, speak=_no_model)  # only renders views
    engine.dialogue = dialogue
    return engine.messages("lawyer", extra_user=scenario.deliverable.force_template)


def dialogue_columns(scenario: Scenario, instance: Instance, row: Any, d: Dialogue) -> dict[str, Any]:
    """MILE's columns of one dialogue row; a lawyer who said nothing (engine: empty_reply) or whose history outgrew
    its context (context_exceeded: the model's limit) before a complaint leaves an empty complaint, scored as such."""
    utter = d.utterances()
    checks = [t for t in d.turns if t.kind is TurnKind.CHECK]
    own_end = d.ended_by in (EndReason.EMPTY_REPLY, EndReason.CONTEXT_EXCEEDED)
    complaint = "" if d.deliverable is None and own_end else d.deliverable
    return {
        "deliverable": complaint,
        "law_reason": row.law_reason,
        "plaintiff_type": row.plaintiff_type,
        "turns": max(d.exchanges - 1, 0),
        "client_revisions": sum(t.revision for t in utter if t.speaker == "client"),
        "lawyer_revisions": sum(t.revision for t in utter if t.speaker == "lawyer"),
        "blurred": sum(bool(t.data.get("blurred")) for t in checks),
        "unsupervised": sum(t.failure is not None for t in checks),
        "persona": json.dumps({**persona(row), "less": row.less}, ensure_ascii=False, sort_keys=True, default=str),
        "lawyer_view": json.dumps(lawyer_view(scenario, instance, d), ensure_ascii=False),
    }


def mile_tables(
    scenario: Scenario,
    instances: dict[str, Instance],
    rows: dict[str, Any],
    dialogues: list[Dialogue],
    run: RunLabel,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(turns, dialogues) of a MILE run; `rows` are the MILE table's rows by instance id."""

    def extend(d: Dialogue) -> dict[str, Any]:
        return dialogue_columns(scenario, instances[d.instance_id], rows[d.instance_id], d)

    return run_tables(dialogues, lambda _: scenario, run, annotate=paper_turns, extend=extend, extra_columns=COLUMNS)

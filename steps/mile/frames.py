"""Simulated dialogues → the tables of a run: one row per turn record, one row per dialogue.

Turn numbers are the paper's: 0 for the fixed greetings, 1…T for the client–lawyer turns, T + 1 for the
complaint (engine exchange e is turn e − 1). The dialogue row keeps what the evaluation and the SFT export
need: how it ended, T, the complaint, revision and blurring counts, supervisor failures, the persona, and the
lawyer's final view (its system prompt, the whole interview and the drafting request) as chat messages.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from steps.llm import Reply
from steps.mile.instances import persona
from steps.simulate import Dialogue, EndReason, Scenario, TurnKind
from steps.simulate.engine import Engine
from steps.simulate.instance import Instance
from steps.simulate.model import SpeakCall


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def turns_frame(dialogues: list[Dialogue], *, run_id: str, agent: str) -> pd.DataFrame:
    rows = []
    for d in dialogues:
        for t in d.turns:
            rows.append(
                {
                    "run_id": run_id,
                    "agent": agent,
                    "instance_id": t.instance_id,
                    "turn_index": t.turn_index,
                    "turn": t.exchange if t.kind is TurnKind.DELIVERABLE else t.exchange - 1,
                    "exchange": t.exchange,
                    "speaker": t.speaker,
                    "addressee": t.addressee,
                    "kind": t.kind.value,
                    "text": t.text,
                    "model": t.model,
                    "call_key": t.call_key,
                    "prompt_tokens": t.prompt_tokens,
                    "completion_tokens": t.completion_tokens,
                    "failure": t.failure,
                    "revision": t.revision,
                    "data": _json(t.data),
                }
            )
    return pd.DataFrame(rows)


def _failure(d: Dialogue) -> str | None:
    failed = [t for t in d.turns if t.failure is not None and t.kind is not TurnKind.CHECK]
    return f"{failed[-1].speaker}: {failed[-1].failure}" if failed else None


async def _no_model(call: SpeakCall) -> Reply:
    raise RuntimeError(f"a view calls no model (asked for {call.role})")


def lawyer_view(scenario: Scenario, instance: Instance, dialogue: Dialogue) -> list[dict[str, str]]:
    """The messages of the lawyer's drafting call: system prompt, the interview, the drafting request."""
    engine = Engine(scenario, instance, speak=_no_model)  # only renders views
    engine.dialogue = dialogue
    return engine.messages("lawyer", extra_user=scenario.deliverable.force_template)


def dialogue_row(scenario: Scenario, instance: Instance, row: Any, d: Dialogue) -> dict[str, Any]:
    utter = d.utterances()
    checks = [t for t in d.turns if t.kind is TurnKind.CHECK]
    return {
        "instance_id": d.instance_id,
        "law_reason": row.law_reason,
        "plaintiff_type": row.plaintiff_type,
        "ended_by": d.ended_by.value if d.ended_by else "unknown",
        "turns": max(d.exchanges - 1, 0),
        # a lawyer who said nothing ends the dialogue (engine: empty_reply) with an empty complaint, scored as such
        "complaint": "" if d.deliverable is None and d.ended_by is EndReason.EMPTY_REPLY else d.deliverable,
        "failure": _failure(d),
        "client_revisions": sum(t.revision for t in utter if t.speaker == "client"),
        "lawyer_revisions": sum(t.revision for t in utter if t.speaker == "lawyer"),
        "blurred": sum(bool(t.data.get("blurred")) for t in checks),
        "unsupervised": sum(t.failure is not None for t in checks),
        "persona": _json({**persona(row), "less": row.less}),
        "lawyer_view": json.dumps(lawyer_view(scenario, instance, d), ensure_ascii=False),
    }


def deliverables_frame(
    scenario: Scenario,
    instances: dict[str, Instance],
    rows: dict[str, Any],
    dialogues: list[Dialogue],
    *,
    run_id: str,
    agent: str,
) -> pd.DataFrame:
    records = [dialogue_row(scenario, instances[d.instance_id], rows[d.instance_id], d) for d in dialogues]
    return pd.DataFrame(records).assign(run_id=run_id, agent=agent)

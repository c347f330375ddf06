"""Dialogues as table rows: one row per turn (turns.parquet) and one per dialogue (dialogues.parquet).

Rows carry only what the dialogue determines (text, routing, model, tokens, call key, failure), so that a
resumed or replayed run writes the same bytes as an uninterrupted one, and no evaluation (the judge stage reads
the deliverables and the failure causes: steps.j1eval); what a particular process measured
(latency, cache hits, attempts, cost) is in the run's usage.parquet, joined on `call_key`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pandas as pd

from steps.simulate.model import Dialogue, EndReason, Scenario, Turn

StageOf = Callable[[Scenario, list[Turn]], list[str | None]]

TURN_COLUMNS = [
    "run_id",
    "agent",
    "scenario",
    "instance_id",
    "turn_index",
    "exchange",
    "speaker",
    "speaker_label",
    "addressee",
    "kind",
    "stage",
    "text",
    "model",
    "call_key",
    "prompt_tokens",
    "completion_tokens",
    "revision",
    "failure",
    "data",
]
DELIVERABLE_COLUMNS = [
    "run_id",
    "agent",
    "scenario",
    "instance_id",
    "kind",
    "text",
    "forced",
    "ended_by",
    "exchanges",
    "utterances",
    "failure",
]


def _label(scenario: Scenario, role: str) -> str:
    return scenario.roles[role].label or role if role in scenario.roles else role


def turn_rows(
    dialogue: Dialogue, scenario: Scenario, *, run_id: str, agent: str, stage_of: StageOf | None = None
) -> list[dict[str, Any]]:
    stages = stage_of(scenario, dialogue.turns) if stage_of else [None] * len(dialogue.turns)
    return [
        {
            "run_id": run_id,
            "agent": agent,
            "scenario": dialogue.scenario,
            "instance_id": t.instance_id,
            "turn_index": t.turn_index,
            "exchange": t.exchange,
            "speaker": t.speaker,
            "speaker_label": _label(scenario, t.speaker),
            "addressee": t.addressee,
            "kind": t.kind.value,
            "stage": stage,
            "text": t.text,
            "model": t.model,
            "call_key": t.call_key,
            "prompt_tokens": t.prompt_tokens,
            "completion_tokens": t.completion_tokens,
            "revision": t.revision,
            "failure": t.failure,
            "data": json.dumps(t.data, ensure_ascii=False, sort_keys=True),
        }
        for t, stage in zip(dialogue.turns, stages, strict=True)
    ]


def deliverable_row(dialogue: Dialogue, scenario: Scenario, *, run_id: str, agent: str) -> dict[str, Any]:
    failed = next((t.failure for t in reversed(dialogue.turns) if t.failure), None)
    return {
        "run_id": run_id,
        "agent": agent,
        "scenario": dialogue.scenario,
        "instance_id": dialogue.instance_id,
        "kind": scenario.deliverable.name or "dialogue",
        "text": dialogue.deliverable,
        "forced": dialogue.deliverable_forced,
        "ended_by": (dialogue.ended_by or EndReason.MAX_TURNS).value,
        "exchanges": dialogue.exchanges,
        "utterances": len(dialogue.utterances()),
        "failure": failed if dialogue.ended_by is EndReason.CALL_FAILED else None,
    }


def run_tables(
    dialogues: list[Dialogue],
    scenario_of: Callable[[str], Scenario],
    *,
    run_id: str,
    agent: str,
    stage_of: StageOf | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The turns and deliverables tables of a run, ordered by instance id and turn index."""
    turns, deliverables = [], []
    for d in sorted(dialogues, key=lambda d: d.instance_id):
        scenario = scenario_of(d.scenario)
        turns += turn_rows(d, scenario, run_id=run_id, agent=agent, stage_of=stage_of)
        deliverables.append(deliverable_row(d, scenario, run_id=run_id, agent=agent))
    return pd.DataFrame(turns, columns=TURN_COLUMNS), pd.DataFrame(deliverables, columns=DELIVERABLE_COLUMNS)

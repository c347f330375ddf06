"""Dialogues as table rows, for every dialogue benchmark: one row per turn (turns.parquet) and one per dialogue
(dialogues.parquet), the columns of `steps.schemas.runs` (`Turns`, `Dialogues`).

Rows carry only what the dialogue determines (text, routing, model, tokens, call key, truncation, failure), so that a
resumed or replayed run writes the same bytes as an uninterrupted one, and no evaluation (the judge stages read
the deliverables and the transcripts); what a particular process measured (latency, cache hits, attempts, cost)
is in the run's usage.parquet, joined on `call_key`. A benchmark adds what it needs in a declared way: per turn,
values of the nullable columns `TURN_EXTRAS` (`annotate`); per dialogue, its own columns (`extend`, the
columns of its `Dialogues` subclass).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from steps.simulate.model import Dialogue, EndReason, Scenario, Turn

TURN_EXTRAS = ("stage", "paper_turn")  # per-turn columns a benchmark may fill; None elsewhere
# per turn of a dialogue, the values of some of TURN_EXTRAS: {"stage": [...]} (one value per turn)
Annotate = Callable[[Scenario, list[Turn]], dict[str, list[Any]]]
Extend = Callable[[Dialogue], dict[str, Any]]  # a dialogue's benchmark-specific columns (may override a base one)

TURN_COLUMNS = [
    "run_id",
    "agent",
    "benchmark",
    "scenario",
    "instance_id",
    "turn_index",
    "exchange",
    "speaker",
    "speaker_label",
    "addressee",
    "kind",
    *TURN_EXTRAS,
    "text",
    "model",
    "call_key",
    "prompt_tokens",
    "completion_tokens",
    "truncated",
    "revision",
    "failure",
    "reasoning",
    "data",
]
DIALOGUE_COLUMNS = [
    "run_id",
    "agent",
    "benchmark",
    "scenario",
    "instance_id",
    "ended_by",
    "exchanges",
    "utterances",
    "deliverable_kind",
    "deliverable",
    "forced",
    "failure",
]


@dataclass(frozen=True)
class RunLabel:
    """What every row of a run carries: its run id, the agent (or reference) and the benchmark."""

    run_id: str
    agent: str
    benchmark: str

    def columns(self) -> dict[str, str]:
        return {"run_id": self.run_id, "agent": self.agent, "benchmark": self.benchmark}


def speaker_label(scenario: Scenario, role: str) -> str:
    """How the other roles hear `role` named: its label, else its name."""
    return scenario.roles[role].label or role if role in scenario.roles else role


def dialogue_failure(dialogue: Dialogue) -> str | None:
    """`<role>: <failure>` of the failed call that ended the dialogue; None when no failed call ended it."""
    if dialogue.ended_by is not EndReason.CALL_FAILED:
        return None
    failed = next((t for t in reversed(dialogue.turns) if t.failure), None)
    return f"{failed.speaker}: {failed.failure}" if failed else "a model call failed"


def context_limit_keys(turns: pd.DataFrame, dialogues: pd.DataFrame) -> list[str]:
    """The call keys of the agent's requests that outgrew its context: the last turn of every dialogue that ended
    `context_exceeded` (the engine ends there). A stage's `check_calls` takes them as the model's limit, not as
    failed calls."""
    ended = set(dialogues.loc[dialogues.ended_by == EndReason.CONTEXT_EXCEEDED.value, "instance_id"])
    if not ended:
        return []
    own = turns[turns.instance_id.isin(ended)].sort_values(["instance_id", "turn_index"])
    last = own.groupby("instance_id", sort=False).tail(1)
    return sorted(set(last.loc[last.failure.notna(), "call_key"]))


def turn_rows(
    dialogue: Dialogue, scenario: Scenario, run: RunLabel, annotate: Annotate | None = None
) -> list[dict[str, Any]]:
    """The rows of one dialogue's turns, in turn order."""
    extras = annotate(scenario, dialogue.turns) if annotate else {}
    unknown = set(extras) - set(TURN_EXTRAS)
    if unknown or any(len(values) != len(dialogue.turns) for values in extras.values()):
        raise ValueError(f"annotations must give one value per turn of {', '.join(TURN_EXTRAS)}, got {sorted(extras)}")
    return [
        {
            **run.columns(),
            "scenario": dialogue.scenario,
            "instance_id": t.instance_id,
            "turn_index": t.turn_index,
            "exchange": t.exchange,
            "speaker": t.speaker,
            "speaker_label": speaker_label(scenario, t.speaker),
            "addressee": t.addressee,
            "kind": t.kind.value,
            **{column: extras[column][i] if column in extras else None for column in TURN_EXTRAS},
            "text": t.text,
            "model": t.model,
            "call_key": t.call_key,
            "prompt_tokens": t.prompt_tokens,
            "completion_tokens": t.completion_tokens,
            "truncated": t.truncated,
            "revision": t.revision,
            "failure": t.failure,
            "reasoning": t.reasoning,
            "data": json.dumps(t.data, ensure_ascii=False, sort_keys=True),
        }
        for i, t in enumerate(dialogue.turns)
    ]


def dialogue_row(dialogue: Dialogue, scenario: Scenario, run: RunLabel) -> dict[str, Any]:
    """The base row of one dialogue (`steps.schemas.runs.Dialogues`)."""
    if dialogue.ended_by is None:
        raise ValueError(f"dialogue {dialogue.instance_id} has no end reason: the engine always sets one")
    return {
        **run.columns(),
        "scenario": dialogue.scenario,
        "instance_id": dialogue.instance_id,
        "ended_by": dialogue.ended_by.value,
        "exchanges": dialogue.exchanges,
        "utterances": len(dialogue.utterances()),
        "deliverable_kind": scenario.deliverable.name or "dialogue",
        "deliverable": dialogue.deliverable,
        "forced": dialogue.deliverable_forced,
        "failure": dialogue_failure(dialogue),
    }


def run_tables(
    dialogues: Sequence[Dialogue],
    scenario_of: Callable[[str], Scenario],
    run: RunLabel,
    *,
    annotate: Annotate | None = None,
    extend: Extend | None = None,
    extra_columns: Sequence[str] = (),
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The turns and dialogues tables of a run, in the dialogues' order. `scenario_of` maps a scenario code to its
    scenario; `extend` gives each dialogue row the benchmark's `extra_columns`."""
    turns, rows = [], []
    for d in dialogues:
        scenario = scenario_of(d.scenario)
        turns += turn_rows(d, scenario, run, annotate)
        rows.append(dialogue_row(d, scenario, run) | (extend(d) if extend else {}))
    columns = [*DIALOGUE_COLUMNS, *(c for c in extra_columns if c not in DIALOGUE_COLUMNS)]
    return pd.DataFrame(turns, columns=TURN_COLUMNS), pd.DataFrame(rows, columns=columns)

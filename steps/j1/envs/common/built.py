"""What an instance builder returns: a draft awaiting its persona, a ready instance, or a skip with its reason.

A builder reads one source (a case, a topic list) and either drafts the instance, naming the lay role that
needs a persona (`Subject`), or skips it with the reason; it never fills a gap with a placeholder. `finish`
puts the persona's behaviour style into the lay role's profile once the personas stage has written it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from steps.j1.personas.generate import Persona, Subject


@dataclass(frozen=True)
class Draft:
    instance_id: str
    scenario: str
    source_ids: tuple[str, ...]
    profiles: dict[str, dict[str, Any]]
    ground_truth: dict[str, Any]
    max_turns: int
    subject: Subject | None = None  # the lay role that needs a persona (its profile lacks `style`)
    facets: dict[str, Any] = field(default_factory=dict)  # for the report: case type, charges, topic kinds


@dataclass(frozen=True)
class Built:
    instance_id: str
    scenario: str
    source_ids: tuple[str, ...]
    profiles: dict[str, dict[str, Any]]
    ground_truth: dict[str, Any]
    max_turns: int
    persona_ids: tuple[str, ...] = ()
    facets: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Skipped:
    instance_id: str
    scenario: str
    source_ids: tuple[str, ...]
    reason: str


def missing(needs: Mapping[str, Any]) -> list[str]:
    """Names of the needed values that are absent or empty."""
    return [name for name, value in needs.items() if value is None or (hasattr(value, "__len__") and not len(value))]


def skip_if_missing(instance_id: str, scenario: str, sources: tuple[str, ...], needs: Mapping[str, Any]):
    """A `Skipped` naming every missing value, or None when nothing is missing."""
    gaps = missing(needs)
    return Skipped(instance_id, scenario, sources, "missing: " + ", ".join(gaps)) if gaps else None


def finish(draft: Draft, personas: Mapping[str, Persona]) -> Built | Skipped:
    """The ready instance: the persona's style goes into its role's profile; a failed persona skips it."""
    ids = (draft.instance_id, draft.scenario, draft.source_ids)
    if draft.subject is None:
        return Built(
            *ids,
            profiles=draft.profiles,
            ground_truth=draft.ground_truth,
            max_turns=draft.max_turns,
            facets=draft.facets,
        )
    persona = personas.get(draft.subject.key)
    if persona is None:
        return Skipped(*ids, reason="missing: persona (not generated; rerun the personas stage)")
    if persona.failure or not persona.style:
        return Skipped(*ids, reason=f"missing: persona ({persona.failure or 'empty style'})")
    role = draft.subject.role
    profiles = {**draft.profiles, role: {**draft.profiles[role], "style": persona.style}}
    return Built(
        *ids,
        profiles=profiles,
        ground_truth=draft.ground_truth,
        max_turns=draft.max_turns,
        persona_ids=(persona.key,),
        facets=draft.facets,
    )

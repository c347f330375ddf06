"""Persona generation through the model door: trait levels (JSON), then a behaviour style paragraph.

The environment model assigns the five levels from the role's information; "medium" levels are then
redistributed 2:1:2 (big5.redistribute) before the style is written, so the style matches the final levels.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from steps.j1.personas.big5 import describe, redistribute
from steps.j1.personas.legal_sense import LEGAL_SENSE, assign_distractors, assign_legal_sense
from steps.llm import Completer, ModelConfig
from steps.llm.structured import complete_json
from steps.simulate.templates import render

TEMPLATES = Path(__file__).parent / "templates"
LEVELS_SCENARIO = "persona.levels"
STYLE_SCENARIO = "persona.style"
PROMPT_VERSION = 1

Level = Literal["high", "medium", "low"]


class LevelsAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    extraversion: Level
    neuroticism: Level
    openness: Level
    agreeableness: Level
    conscientiousness: Level


@dataclass(frozen=True)
class Subject:
    """A lay role to give a persona: where it plays, who it is, and the information its traits come from."""

    key: str  # stable id, e.g. "CD/c3rd/<case id>/plaintiff"
    scenario: str
    role: str
    role_desc: str  # e.g. "民事案件的原告（自然人）"
    kind: str  # person | entity
    info: str
    particulars: frozenset[str] = frozenset()  # which personal fields the role has (for the withheld detail)


@dataclass(frozen=True)
class Persona:
    key: str
    scenario: str
    role: str
    assigned: dict[str, str] | None  # the model's levels before redistribution
    levels: dict[str, str] | None
    style: str | None
    legal_sense: int
    legal_sense_text: str
    withheld_field: str | None
    vague_facts: bool
    costs_unprompted: bool
    model: str
    failure: str | None  # why the persona is incomplete (the instance is then skipped)


async def generate(door: Completer, model: ModelConfig, subject: Subject, *, seed: int) -> Persona:
    meta = {"scenario": LEVELS_SCENARIO, "instance_id": subject.key, "role": subject.role, "info": subject.info}
    prompt = render(TEMPLATES, "levels.j2", {"role_desc": subject.role_desc, "info": subject.info})
    answer = await complete_json(
        door, model, [{"role": "user", "content": prompt}], LevelsAnswer, purpose="environment", metadata=meta
    )
    sense = assign_legal_sense(seed=seed, key=subject.key)
    distractors = assign_distractors(subject.kind, set(subject.particulars), seed=seed, key=subject.key)
    persona = partial(
        Persona,
        key=subject.key,
        scenario=subject.scenario,
        role=subject.role,
        legal_sense=sense,
        legal_sense_text=LEGAL_SENSE[sense],
        withheld_field=distractors.withheld_field,
        vague_facts=distractors.vague_facts,
        costs_unprompted=distractors.costs_unprompted,
        model=model.model,
    )
    if answer.value is None:
        failed = answer.failure
        reason = f"{failed.kind.value}: {failed.message}" if failed else "no answer"
        return persona(assigned=None, levels=None, style=None, failure=f"trait levels: {reason}")
    assigned = answer.value.model_dump()
    levels = redistribute(assigned, seed=seed, key=subject.key)
    style_prompt = render(
        TEMPLATES, "style.j2", {"role_desc": subject.role_desc, "info": subject.info, "levels": describe(levels)}
    )
    reply = await door.complete(
        model,
        [{"role": "user", "content": style_prompt}],
        purpose="environment",
        metadata={**meta, "scenario": STYLE_SCENARIO, "levels": levels},
    )
    if not reply.ok or not reply.text.strip():
        reason = f"{reply.kind.value}: {reply.message}" if not reply.ok else "empty style text"
        return persona(assigned=assigned, levels=levels, style=None, failure=f"style: {reason}")
    return persona(assigned=assigned, levels=levels, style=reply.text.strip(), failure=None)

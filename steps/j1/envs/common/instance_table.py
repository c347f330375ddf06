"""From a plan (steps.j1.envs.common.plan) to its tables: the personas its drafts need (stage `j1_personas`, one
model call per lay role) and the instances and skips once the personas are made (stage `j1_instances`).
`jurisflow estimate` makes them the same way."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pandas as pd

from steps.j1.envs.common.built import Built, Skipped, finish
from steps.j1.envs.common.plan import Plan
from steps.j1.envs.registry import SCENARIOS
from steps.j1.envs.schemas import Instances, InstanceSkips
from steps.j1.personas.generate import generate
from steps.j1.personas.table import persona_rows, personas_from
from steps.llm import Completer, ModelConfig


async def plan_personas(
    door: Completer, model: ModelConfig, the_plan: Plan, *, seed: int, on_done: Callable[[], None] | None = None
) -> pd.DataFrame:
    """A persona for every lay role the plan's drafts name, generated concurrently by `model`; the personas rows."""
    subjects = [d.subject for d in the_plan.drafts if d.subject is not None]

    async def one(subject):
        persona = await generate(door, model, subject, seed=seed)
        if on_done is not None:
            on_done()
        return persona

    personas = await asyncio.gather(*(one(s) for s in subjects))
    sources = {d.subject.key: d.source_ids for d in the_plan.drafts if d.subject is not None}
    return persona_rows(zip(subjects, personas, strict=True), sources=sources, seed=seed, proxy=model.is_scripted)


def instance_tables(the_plan: Plan, personas: pd.DataFrame, *, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The instances and the skips, each in instance id order: the plan's drafts finished with their personas (a
    failed persona skips its instance), and the plan's own skips."""
    by_id = personas_from(personas)
    done = [finish(d, by_id) for d in the_plan.drafts]
    built = [b for b in done if isinstance(b, Built)]
    skipped = [*the_plan.skipped, *(s for s in done if isinstance(s, Skipped))]
    rows = [
        {
            "instance_id": b.instance_id,
            "scenario": b.scenario,
            "scenario_version": SCENARIOS[b.scenario].version,
            "source_ids": list(b.source_ids),
            "persona_ids": list(b.persona_ids),
            "profiles": b.profiles,
            "ground_truth": b.ground_truth,
            "max_turns": b.max_turns,
            "facets": b.facets,
            "seed": seed,
        }
        for b in built
    ]
    skips = [
        {"instance_id": s.instance_id, "scenario": s.scenario, "source_ids": list(s.source_ids), "reason": s.reason}
        for s in skipped
    ]
    return (
        pd.DataFrame(rows, columns=list(Instances.to_schema().columns)).sort_values("instance_id", kind="stable"),
        pd.DataFrame(skips, columns=list(InstanceSkips.to_schema().columns)).sort_values("instance_id", kind="stable"),
    )

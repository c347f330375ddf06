"""Simulating a run: every instance through the engine, the agent (or the reference) against the user."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from steps.llm import Completer, ModelConfig
from steps.simulate import Dialogue
from steps.simulate.instance import Instance
from steps.simulate.journal import DialogueJournal
from steps.simulate.model import Scenario
from steps.simulate.runner import DoorSpeaker, simulate
from steps.ucl.scenario import UCL
from steps.ucl.speaking import UclSpeaker
from steps.ucl.version import protocol_version


def simulate_run(
    door: Completer,
    assistant: ModelConfig,
    user: ModelConfig,
    instances: list[Instance],
    journal: DialogueJournal,
    *,
    on_done: Callable[[Dialogue], None] | None = None,
    scenario: Scenario = UCL,
) -> list[Dialogue]:
    """Run every instance (resuming from `journal`); dialogues in the instances' order. `scenario`: `UCL` (the
    released user prompt) or `UCL_OURS` (steps/ucl/scenario.py)."""
    return asyncio.run(
        simulate_dialogues(door, assistant, user, instances, journal, on_done=on_done, scenario=scenario)
    )


async def simulate_dialogues(
    door: Completer,
    assistant: ModelConfig,
    user: ModelConfig,
    instances: list[Instance],
    journal: DialogueJournal,
    *,
    on_done: Callable[[Dialogue], None] | None = None,
    scenario: Scenario = UCL,
) -> list[Dialogue]:
    """`simulate_run` inside a running event loop."""
    speak = UclSpeaker(DoorSpeaker(door, assistant, user), protocol_version())
    return await simulate(instances, lambda _: scenario, speak, journal, on_done=on_done)

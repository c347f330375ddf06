"""Running many instances concurrently through the model door, with a journal for resume."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from steps.llm import ModelConfig, ModelDoor, Reply
from steps.simulate.engine import run_dialogue
from steps.simulate.instance import Instance
from steps.simulate.journal import Journal
from steps.simulate.model import Dialogue, Scenario, SpeakCall


class DoorSpeaker:
    """Maps a role to its model (the agent under test or the environment model) and calls the door."""

    def __init__(self, door: ModelDoor, agent: ModelConfig, environment: ModelConfig):
        self.door, self.models = door, {"agent": agent, "environment": environment}

    async def __call__(self, call: SpeakCall) -> Reply:
        model = self.models[call.role.model]
        metadata = {
            "scenario": call.scenario,
            "instance_id": call.instance_id,
            "role": call.role.name,
            "turn_index": call.turn_index,
            **call.context,
        }
        purpose = "agent" if call.role.model == "agent" else "environment"
        return await self.door.complete(model, call.messages, purpose=purpose, metadata=metadata)


class _JournaledSpeaker:
    """Replays an instance's recorded replies in order, then speaks live and records each new reply."""

    def __init__(self, speak: Callable, journal: Journal, instance_id: str):
        self.speak, self.journal, self.instance_id, self.seq = speak, journal, instance_id, 0

    async def __call__(self, call: SpeakCall) -> Reply:
        seq, self.seq = self.seq, self.seq + 1
        recorded = self.journal.replay(self.instance_id, seq)
        if recorded is not None:
            return recorded
        reply = await self.speak(call)
        self.journal.record_call(self.instance_id, seq, reply)
        return reply


async def simulate(
    instances: list[Instance],
    scenario_of: Callable[[Instance], Scenario],
    speak: Callable,
    journal: Journal,
    *,
    max_concurrent: int = 64,
    on_done: Callable[[Dialogue], None] | None = None,
) -> list[Dialogue]:
    """Run every instance (turns within an instance stay sequential); results in input order."""
    bound = asyncio.Semaphore(max_concurrent)

    async def one(instance: Instance) -> Dialogue:
        if instance.instance_id in journal.done:
            dialogue = journal.done[instance.instance_id]
        else:
            async with bound:
                dialogue = await run_dialogue(
                    scenario_of(instance), instance, _JournaledSpeaker(speak, journal, instance.instance_id)
                )
            journal.record_done(dialogue)
        if on_done is not None:
            on_done(dialogue)
        return dialogue

    return list(await asyncio.gather(*(one(i) for i in instances)))

"""Running many instances concurrently through the model door, with a journal for resume.

Turns within an instance are sequential; instances run concurrently (at most `max_concurrent` dialogues in
flight, and the door bounds the calls per endpoint). With a journal, finished dialogues are taken from it and
unfinished ones replay their recorded calls (see `Journal`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from steps.llm import Completion, ModelConfig, Reply, UsageRecord
from steps.simulate.engine import run_dialogue
from steps.simulate.instance import Instance
from steps.simulate.journal import Journal, Recorded, call_digest
from steps.simulate.model import Dialogue, Scenario, SpeakCall

if TYPE_CHECKING:
    from steps.llm.door import ModelDoor


class DoorSpeaker:
    """Maps a role to its model (the agent under test or the environment model) and calls the door.

    `policy_version` (e.g. a hash of the scripted policies' code) enters the metadata of scripted calls only,
    and so their cache key: a scripted model's answers change with its code, a real model's do not.
    """

    def __init__(self, door: ModelDoor, agent: ModelConfig, environment: ModelConfig, policy_version: str = ""):
        self.door, self.models = door, {"agent": agent, "environment": environment}
        self.policy_version = policy_version

    def metadata(self, call: SpeakCall) -> dict:
        meta = {"scenario": call.scenario, "instance_id": call.instance_id, "role": call.role.name,
                "turn_index": call.turn_index, **call.context}  # fmt: skip
        if self.policy_version and self.models[call.role.model].is_scripted:
            meta["policy_version"] = self.policy_version
        return meta

    async def __call__(self, call: SpeakCall) -> Reply:
        model = self.models[call.role.model]
        purpose = "agent" if call.role.model == "agent" else "environment"
        return await self.door.complete(model, call.messages, purpose=purpose, metadata=self.metadata(call))

    def account_replay(self, instance: Instance, role_model: str, recorded: Recorded) -> None:
        """An accounting row for a call taken from the journal (made by an earlier, interrupted process)."""
        model, r = self.models[role_model], recorded.reply
        self.door.usage.append(UsageRecord(
            self.door.run_id, "agent" if role_model == "agent" else "environment", model.name, model.model,
            r.call_key, r.prompt_tokens, r.completion_tokens, r.cost_usd, 0.0 if r.cache_hit else r.latency_s,
            r.attempts, r.cache_hit, None, None,
            {"scenario": instance.scenario, "instance_id": instance.instance_id, "role": recorded.role},
        ))  # fmt: skip


class _JournaledSpeaker:
    """Replays an instance's recorded replies in order while the calls match, then speaks live and records."""

    def __init__(self, speak: Callable, journal: Journal, instance: Instance):
        self.speak, self.journal, self.instance, self.seq, self.live = speak, journal, instance, 0, False

    async def __call__(self, call: SpeakCall) -> Reply:
        seq, self.seq = self.seq, self.seq + 1
        if not self.live:
            recorded = self.journal.replay(self.instance, seq, call_digest(call))
            if recorded is not None:
                self._account(call, recorded)
                return recorded
            self.live = True  # the dialogue left the recorded path: everything after is asked anew
        reply = await self.speak(call)
        self.journal.record_call(self.instance, seq, call, reply)
        return reply

    def _account(self, call: SpeakCall, reply: Completion) -> None:
        if isinstance(self.speak, DoorSpeaker):
            digest = call_digest(call)
            self.speak.account_replay(self.instance, call.role.model, Recorded(0, digest, call.role.name,
                                                                                call.purpose, reply))  # fmt: skip


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
        dialogue = journal.finished(instance)
        if dialogue is not None:
            if isinstance(speak, DoorSpeaker):
                for r in journal.recorded(instance):
                    speak.account_replay(instance, scenario_of(instance).role(r.role).model, r)
        else:
            async with bound:
                dialogue = await run_dialogue(scenario_of(instance), instance,
                                              _JournaledSpeaker(speak, journal, instance))  # fmt: skip
            journal.record_done(instance, dialogue)
        if on_done is not None:
            on_done(dialogue)
        return dialogue

    return list(await asyncio.gather(*(one(i) for i in instances)))

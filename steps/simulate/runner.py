"""Running many instances concurrently through the model door, with a journal for resume.

Turns within an instance are sequential; instances run concurrently (at most `max_concurrent` dialogues in
flight, and the door bounds the calls per endpoint). With a journal, finished dialogues are taken from it and
unfinished ones replay their recorded calls (see `steps.simulate.journal.Journal`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from steps.llm import Completer, ModelConfig, Reply
from steps.llm.results import public_metadata
from steps.simulate.engine import run_dialogue
from steps.simulate.instance import Instance
from steps.simulate.journal import DialogueJournal, Recorded, call_digest
from steps.simulate.model import Dialogue, Scenario, SpeakCall


class DoorSpeaker:
    """Maps a role to its model (the agent under test or the environment model) and calls the door.

    `policy_version` (e.g. a hash of the scripted policies' code) enters the metadata of scripted calls only,
    and so their cache key: a scripted model's answers change with its code, a real model's do not.

    A speaker that wraps another (`UclSpeaker`, MILE's `FixedOpening`) exposes the inner one's `door` and
    `accounting`, so that a call the journal answers is accounted exactly as the door accounted it when made.
    """

    def __init__(self, door: Completer, agent: ModelConfig, environment: ModelConfig, policy_version: str = ""):
        self.door, self.models = door, {"agent": agent, "environment": environment}
        self.policy_version = policy_version

    def metadata(self, call: SpeakCall) -> dict:
        meta = {
            "scenario": call.scenario,
            "instance_id": call.instance_id,
            "role": call.role.name,
            "turn_index": call.turn_index,
            **call.context,
        }
        if self.policy_version and self.models[call.role.model].is_scripted:
            meta["policy_version"] = self.policy_version
        return meta

    def route(self, call: SpeakCall) -> tuple[ModelConfig, str]:
        """The model that answers `call`, and the purpose its accounting row names."""
        return self.models[call.role.model], "agent" if call.role.model == "agent" else "environment"

    async def __call__(self, call: SpeakCall) -> Reply:
        model, purpose = self.route(call)
        return await self.door.complete(model, call.messages, purpose=purpose, metadata=self.metadata(call))

    def accounting(self, call: SpeakCall) -> dict[str, Any]:
        """The fields of the door's accounting row for `call` that its reply does not hold (journaled with it)."""
        model, purpose = self.route(call)
        return {
            "model_name": model.name,
            "model": model.model,
            "purpose": purpose,
            "metadata": public_metadata(self.metadata(call)),
        }


class _JournaledSpeaker:
    """Replays an instance's recorded replies in order while the calls match, then speaks live and records."""

    def __init__(self, speak: Callable, journal: DialogueJournal, instance: Instance):
        self.speak, self.journal, self.instance, self.seq, self.live = speak, journal, instance, 0, False

    async def __call__(self, call: SpeakCall) -> Reply:
        seq, self.seq = self.seq, self.seq + 1
        if not self.live:
            recorded = self.journal.replay(self.instance, seq, call_digest(call))
            if recorded is not None:
                _account_replay(self.speak, recorded)
                return recorded.reply
            self.live = True  # the dialogue left the recorded path: everything after is asked anew
        reply = await self.speak(call)
        accounting = getattr(self.speak, "accounting", None)
        self.journal.record_call(self.instance, seq, call, reply, accounting(call) if accounting else None)
        return reply


def _account_replay(speak: Callable, recorded: Recorded) -> None:
    """The accounting row of a journaled call, as the door wrote it when the call was made (a fixed line that
    no model spoke has none)."""
    door = getattr(speak, "door", None)
    if door is not None and recorded.usage is not None:
        door.account_replay(recorded.reply, **recorded.usage)


async def simulate(
    instances: list[Instance],
    scenario_of: Callable[[Instance], Scenario],
    speak: Callable,
    journal: DialogueJournal,
    *,
    max_concurrent: int = 64,
    on_done: Callable[[Dialogue], None] | None = None,
) -> list[Dialogue]:
    """Run every instance (turns within an instance stay sequential); results in input order."""
    bound = asyncio.Semaphore(max_concurrent)

    async def one(instance: Instance) -> Dialogue:
        dialogue = journal.finished(instance)
        if dialogue is not None:
            for r in journal.recorded(instance):
                _account_replay(speak, r)
        else:
            async with bound:
                dialogue = await run_dialogue(
                    scenario_of(instance), instance, _JournaledSpeaker(speak, journal, instance)
                )
            journal.record_done(instance, dialogue)
        if on_done is not None:
            on_done(dialogue)
        return dialogue

    return list(await asyncio.gather(*(one(i) for i in instances)))

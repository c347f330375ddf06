"""How UCL dialogues reach the models: the engine's `DoorSpeaker`, plus two UCL rules.

1. Every call's metadata names the task and the protocol version (read by scripted models and by the
   accounting; real models never see metadata).
2. A simulated user that answers with nothing has failed: its empty message becomes a failed call, so the
   dialogue ends as a recorded failure (`call_failed`) instead of passing an empty user turn to the
   assistant. An assistant that says nothing has answered (badly): that is the null agent's behaviour.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from steps.llm import CallFailure, FailureKind, Reply
from steps.simulate.model import Speak, SpeakCall
from steps.simulate.views import clean_utterance

EMPTY_USER = "the simulated user returned an empty message"


def task_key(instance_id: str) -> str:
    """The task of an item id `<task>/<id>`."""
    return instance_id.rsplit("/", 1)[0]


class UclSpeaker:
    def __init__(self, speak: Speak, version: str):
        self.speak, self.version = speak, version
        self.door = getattr(speak, "door", None)  # see DoorSpeaker: journal replays are accounted by the door

    def _with_task(self, call: SpeakCall) -> SpeakCall:
        return replace(call, context={**call.context, "task": task_key(call.instance_id), "protocol": self.version})

    def accounting(self, call: SpeakCall) -> dict[str, Any] | None:
        inner = getattr(self.speak, "accounting", None)
        return inner(self._with_task(call)) if inner else None

    async def __call__(self, call: SpeakCall) -> Reply:
        reply = await self.speak(self._with_task(call))
        if reply.ok and call.role.model == "environment" and not clean_utterance(reply.text):
            return CallFailure(FailureKind.PARSE, EMPTY_USER, reply.model, reply.call_key, reply.attempts)
        return reply

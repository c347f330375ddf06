"""Turn 0 is scripted, not generated (spec maser-mile §1.5): the client asks for a complaint, the lawyer says
it will first ask some questions. The lawyer's greeting stands in its own memory as its first message.

`FixedOpening` wraps the run's speak function and answers each role's first dialogue call with its fixed line,
without calling a model; every later call passes through. The lines appear in the transcript with the model
name `fixed/opening`.
"""

from __future__ import annotations

from typing import Any

from steps.llm import Completion, Reply
from steps.simulate import SpeakCall

FIXED_MODEL = "fixed/opening"
CLIENT_GREETING = {
    "person": "律师您好，我遇到了一些纠纷，想请您帮我写一份起诉状。",
    "company": "律师您好，我们公司遇到了一些纠纷，想请您帮忙写一份起诉状。",
}
LAWYER_GREETING = "您好，为了帮您写好起诉状，我先问您几个问题，请您如实回答。"


def opening_line(role: str, kind: str) -> str | None:
    if role == "client":
        return CLIENT_GREETING["company" if kind == "company" else "person"]
    if role == "lawyer":
        return LAWYER_GREETING
    return None


class FixedOpening:
    def __init__(self, speak):
        self.speak = speak
        self.door = getattr(speak, "door", None)  # see DoorSpeaker: journal replays are accounted by the door

    @staticmethod
    def _fixed(call: SpeakCall) -> str | None:
        if call.purpose == "dialogue" and call.context.get("own_turns") == 0:
            return opening_line(call.role.name, call.context.get("profile", {}).get("kind", "person"))
        return None

    def accounting(self, call: SpeakCall) -> dict[str, Any] | None:
        """None for a fixed line (no model spoke it, the door has no row for it), else the inner speaker's."""
        inner = getattr(self.speak, "accounting", None)
        return inner(call) if inner is not None and self._fixed(call) is None else None

    async def __call__(self, call: SpeakCall) -> Reply:
        line = self._fixed(call)
        if line is not None:
            return Completion(line, FIXED_MODEL, "", 0, 0, 0.0, 0.0, 0, False)
        return await self.speak(call)

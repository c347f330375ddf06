"""The decoding of each MILE environment role at call time (the settings: steps/mile/params.py, `role_decoding`).

`RoleDecodingSpeaker` tells which role a call serves (`mile_role`) and sends it to the door as the environment
model with that role's decoding, which is therefore part of the call's cache key.
"""

from __future__ import annotations

from typing import Any

from steps.llm import Completer, Decoding, ModelConfig
from steps.mile.params import ROLES
from steps.simulate import SpeakCall
from steps.simulate.runner import DoorSpeaker

SUPERVISOR_PURPOSES = {"stage": "classifier", "review": "supervisor", "style": "styler"}


def describe(decoding: dict[str, Any]) -> str:
    """A short human reading of a decoding dict, e.g. `temperature 0.5, top_p 1, max_tokens 2048`."""
    parts = [
        f"{name} {decoding[name]:g}" if isinstance(decoding[name], float) else f"{name} {decoding[name]}"
        for name in ("temperature", "top_p", "max_tokens", "seed")
        if decoding.get(name) is not None
    ]
    parts += [f"{k} {v}" for k, v in sorted((decoding.get("extra") or {}).items())]
    return ", ".join(parts)


def mile_role(call: SpeakCall) -> str:
    """The environment role a call serves: the supervisor's three kinds of call by purpose, and the client's
    fact-blurring replacement (a revision call while the supervisor's pending verdict is a blur)."""
    if call.role.name == "supervisor":
        if call.purpose not in SUPERVISOR_PURPOSES:
            raise ValueError(f"a MILE supervisor call with purpose '{call.purpose}' has no decoding role")
        return SUPERVISOR_PURPOSES[call.purpose]
    if call.role.name == "client":
        pending = call.context.get("state", {}).get("pending") or {}
        return "blur" if call.purpose == "revision" and pending.get("mode") == "blur" else "client"
    raise ValueError(f"role '{call.role.name}' is not a MILE environment role")


class RoleDecodingSpeaker(DoorSpeaker):
    """`DoorSpeaker` whose environment calls use the decoding of the role they serve."""

    def __init__(
        self,
        door: Completer,
        agent: ModelConfig,
        environment: ModelConfig,
        decodings: dict[str, Decoding],
        policy_version: str = "",
        models: dict[str, ModelConfig] | None = None,
    ):
        super().__init__(door, agent, environment, policy_version)
        missing = set(ROLES) - set(decodings)
        if missing:
            raise ValueError(f"no decoding for the MILE roles {', '.join(sorted(missing))}")
        self.role_models = {r: environment.model_copy(update={"decoding": d}) for r, d in decodings.items()}
        self.role_models.update(models or {})  # a role's own model (`mile.role_models`), its decoding included

    def route(self, call: SpeakCall) -> tuple[ModelConfig, str]:
        if call.role.model != "environment":
            return super().route(call)
        return self.role_models[mile_role(call)], "environment"

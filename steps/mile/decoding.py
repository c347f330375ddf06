"""Decoding per environment role (spec maser-mile §2.6): the paper runs the client, the supervisor, the stage
classifier, the style checker and the fact blurring with different settings of the same model.

`mile.role_decoding` in params.yaml is a preset name or a mapping:
- `paper` (the default): the paper's table, `PAPER` below;
- `none`: every role decodes as the `environment` model;
- a mapping `{client: {temperature: 0.5, max_tokens: 2048}, ...}`: the roles listed get those settings, the
  others decode as the `environment` model.
Each role's settings are merged over the `environment` model's decoding, field by field: a field the override
names replaces the environment's (an explicit `null` clears it, e.g. `max_tokens: null`), a field it leaves out
keeps the environment's (so `environment.decoding.seed` reaches every role: temperature > 0 with a seed is how
a run stays repeatable without being greedy), and `extra` is merged key by key. The lawyer is the agent under
test and keeps its own `agents.<name>.decoding`; the deliverable and any revision of the lawyer too.

`RoleDecodingSpeaker` tells which role a call serves (`mile_role`) and sends it to the door as the environment
model with that role's decoding, which is therefore part of the call's cache key.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from steps.llm import Completer, Decoding, ModelConfig
from steps.simulate import SpeakCall
from steps.simulate.runner import DoorSpeaker

ROLES = ("client", "supervisor", "classifier", "styler", "blur")
PRESETS = ("paper", "none")
SUPERVISOR_PURPOSES = {"stage": "classifier", "review": "supervisor", "style": "styler"}


class RoleDecoding(BaseModel):
    """One role's override: only the fields written are applied (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, gt=0, le=1)
    max_tokens: int | None = Field(default=None, ge=1)
    seed: int | None = None
    extra: dict[str, Any] = Field(default_factory=dict)

    @field_validator("temperature")
    @classmethod
    def _temperature_given(cls, value: float | None) -> float:
        if value is None:  # only a value written in params.yaml is validated: null is not a temperature
            raise ValueError("cannot be null; leave it out to keep the environment's")
        return value

    def over(self, base: Decoding) -> Decoding:
        """This override merged over `base`."""
        fields = {
            name: getattr(self, name)
            for name in ("temperature", "top_p", "max_tokens", "seed")
            if name in self.model_fields_set
        }
        return base.model_copy(update={**fields, "extra": {**base.extra, **self.extra}})


# The paper's table (spec maser-mile §2.6, GPT-4o for every environment role). Fact blurring names no token cap.
PAPER: dict[str, RoleDecoding] = {
    "client": RoleDecoding(temperature=0.5, top_p=1, max_tokens=2048),
    "supervisor": RoleDecoding(temperature=0, max_tokens=2048),
    "classifier": RoleDecoding(temperature=0, max_tokens=1024),
    "styler": RoleDecoding(temperature=0, max_tokens=1024),
    "blur": RoleDecoding(temperature=0.5),
}

RoleDecodingSetting = Literal["paper", "none"] | dict[str, RoleDecoding]


def check_setting(setting: Any) -> Any:
    """The setting parsed (role mappings into `RoleDecoding`s), or one clear line saying what is wrong."""
    expected = f"a preset ({' | '.join(PRESETS)}) or a mapping of roles ({', '.join(ROLES)}) to decoding"
    if isinstance(setting, str):
        if setting not in PRESETS:
            raise ValueError(f"unknown preset '{setting}'; expected {expected}")
        return setting
    if not isinstance(setting, dict):
        raise ValueError(f"got {type(setting).__name__} {setting!r}; expected {expected}")
    unknown = [str(k) for k in setting if k not in ROLES]
    if unknown:
        raise ValueError(
            f"unknown role {', '.join(map(repr, unknown))}; roles are {', '.join(ROLES)} "
            "(the lawyer keeps agents.<name>.decoding)"
        )
    parsed = {}
    for role, value in setting.items():
        try:
            parsed[role] = value if isinstance(value, RoleDecoding) else RoleDecoding.model_validate(value or {})
        except ValidationError as err:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'value'}: "
                f"{e['msg'].removeprefix('Value error, ')} (got {e['input']!r})"
                for e in err.errors()
            )
            raise ValueError(f"role '{role}': {problems}") from None
    return parsed


def overrides(setting: RoleDecodingSetting) -> dict[str, RoleDecoding]:
    if setting == "paper":
        return dict(PAPER)
    if setting == "none":
        return {}
    return dict(setting)


def effective_decodings(environment: Decoding, setting: RoleDecodingSetting) -> dict[str, Decoding]:
    """The decoding every environment role runs with: its override (if any) merged over `environment`."""
    given = overrides(setting)
    return {role: given[role].over(environment) if role in given else environment for role in ROLES}


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
    ):
        super().__init__(door, agent, environment, policy_version)
        missing = set(ROLES) - set(decodings)
        if missing:
            raise ValueError(f"no decoding for the MILE roles {', '.join(sorted(missing))}")
        self.role_models = {r: environment.model_copy(update={"decoding": d}) for r, d in decodings.items()}

    def route(self, call: SpeakCall) -> tuple[ModelConfig, str]:
        if call.role.model != "environment":
            return super().route(call)
        return self.role_models[mile_role(call)], "environment"

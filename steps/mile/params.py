"""Section `mile` of params.yaml (stages `mile_simulate`, `mile_judge`, `mile_report`; MASER/MILE, spec
maser-mile), and the decoding of each environment role (spec maser-mile §2.6): the paper runs the client, the
supervisor, the stage classifier, the style checker and the fact blurring with different settings of the same
model.

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
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, ValidationError, field_validator

from steps.llm.config import Decoding, ModelConfig
from steps.mile.protocol import PAPER as PAPER_PROTOCOL
from steps.protocol import JudgeSetting, PaperProtocol, RoleEntry
from steps.sections import BenchmarkSection, JudgeProbeParams, Section

ROLES = ("client", "supervisor", "classifier", "styler", "blur")
PRESETS = ("paper", "none")


class RoleDecoding(Section):
    """One role's override: only the fields written are applied (see the module docstring)."""

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
        fields: dict[str, Any] = {
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


class MileParams(BenchmarkSection):
    """`sample`: instances stratified by cause of action (None: all 693); `max_turns`: client–lawyer turns after
    the greetings (the released code's 15); `template`: the complaint template the lawyer drafts from (`eval`,
    the released evaluation template; `sta`, the one the STA judge checks against); `supervise`: `client`
    (MILE) or `both` (MASER's data-synthesis mode); the rest select the reference behaviours the spec lists:
    the dialogue's (`PROTOCOL`, part of the run id) and the evaluation's."""

    PAPER: ClassVar[PaperProtocol] = PAPER_PROTOCOL
    ROLES: ClassVar[tuple[str, ...]] = ("environment", "judge")

    environment: RoleEntry | None = None  # over the paper's (protocol: paper) or the global environment
    judge: JudgeSetting = None
    sample: int | None = Field(default=100, ge=1)
    seed: int = 0
    max_turns: int = Field(default=15, ge=1, le=50)
    template: Literal["eval", "sta"] = "eval"
    supervise: Literal["client", "both"] = "client"
    style_triggers_revision: bool = False
    windows: Literal["full", "strict"] = "full"
    count_empty_fields: bool = False
    prof_reference: Literal["rebuilt", "raw"] = "rebuilt"
    evid_reference: Literal["joined", "raw"] = "joined"
    # decoding per environment role merged over `environment.decoding`: paper | none |
    # {client|supervisor|classifier|styler|blur: {temperature, top_p, max_tokens, seed, extra}}
    role_decoding: RoleDecodingSetting = "paper"
    # a model of its own for an environment role, merged field by field over the environment's (after its decoding),
    # e.g. {supervisor: {model: openai/gpt-4o-2024-11-20}}; the paper runs every role on one model
    role_models: dict[str, RoleEntry] = Field(default_factory=dict)
    # the judge audit's re-judgements of a seeded sample of the judge's calls (self-consistency; `shuffle` does not
    # apply: a graded answer has no rubric items to reorder)
    judge_probes: JudgeProbeParams = JudgeProbeParams()

    @field_validator("role_decoding", mode="before")
    @classmethod
    def _known_roles(cls, value: Any) -> Any:
        return check_setting(value)

    def dialogue_options(self) -> dict[str, Any]:
        """What shapes a dialogue besides the models (the run's `options`, part of its id)."""
        return self.model_dump(include=set(PROTOCOL))

    @field_validator("role_models")
    @classmethod
    def _model_roles(cls, value: dict[str, RoleEntry]) -> dict[str, RoleEntry]:
        unknown = sorted(set(value) - set(ROLES))
        if unknown:
            raise ValueError(f"unknown role {', '.join(map(repr, unknown))}; roles are {', '.join(ROLES)}")
        return value

    def role_configs(self, environment: ModelConfig) -> dict[str, ModelConfig]:
        """The model of each environment role: the environment with the role's decoding (`role_decoding`), and
        the role's own entry (`role_models`) merged over it."""
        out = {}
        for role, decoding in self.role_decodings(environment.decoding).items():
            base = environment.model_copy(update={"decoding": decoding})
            own = self.role_models.get(role)
            out[role] = base if own is None else own.over(base.as_entry()).resolve(base.name)
        return out

    def role_decodings(self, environment: Decoding) -> dict[str, Decoding]:
        """The effective decoding of each environment role (client, supervisor, classifier, styler, blur)."""
        return effective_decodings(environment, self.role_decoding)


PROTOCOL = ("max_turns", "template", "supervise", "style_triggers_revision", "seed")
SECTION = MileParams

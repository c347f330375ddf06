"""Section `j1` of params.yaml: one part per J1 stage that reads parameters (`extract` for `j1_extract`,
`topics`, `personas`, `instances`, `simulate`, and `eval` for `j1_judge` and `j1_report`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from steps.j1.envs import known_codes
from steps.j1.protocol import PAPER
from steps.llm.config import ModelConfig, ModelEntry
from steps.protocol import JudgeSetting, PaperProtocol, RoleEntry
from steps.sections import BenchmarkSection, Section


class OwnModel(Section):
    """A stage that calls the environment model unless its section names a model of its own (`model:`)."""

    model: ModelEntry | None = None

    def resolve_model(self, environment: ModelConfig) -> ModelConfig:
        """The section's own `model`, or `environment` (the environment model) when it is not set."""
        return self.model.resolve(type(self).__name__.removesuffix("Params").lower()) if self.model else environment


class ExtractParams(OwnModel):
    """Stage `j1_extract`: how many judgments per source (None: all), model calls per case (1 + repair rounds),
    and the model that extracts (None: the environment model)."""

    limit: int | None = Field(default=None, ge=1)
    max_attempts: int = Field(default=2, ge=1, le=5)


class TopicsParams(Section):
    """Stage `j1_topics`: KQ/LC topic lists. `derived` applies our rules to LawBench 1-1/1-2/3-8 (offline); `llm`
    has the environment model read each source and write the topics, occupation and theme (J1's procedure)."""

    method: Literal["derived", "llm"] = "derived"
    articles_per_instance: int = Field(default=4, ge=2, le=10)  # LawBench 1-1 articles grouped per KQ instance
    llm_limit: int | None = Field(default=None, ge=1)  # llm: sources per scenario sent to the model (None: all)
    seed: int = 0  # the clients' occupations and names


class PersonasParams(OwnModel):
    """Stage `j1_personas`: the seed of the 2:1:2 redistribution, the legal-sense level and the distractors, and
    the model that writes the trait levels and styles (None: the environment model)."""

    seed: int = 0


class InstancesParams(Section):
    """Stages `j1_personas` and `j1_instances`: instances per scenario (None: every eligible source; "paper":
    J1's Table 5 counts, `steps.j1.envs.registry.instance_sizes` resolves it), the seed of the sample, whether
    CD, DD and CI share one set of civil cases (J1's way) and whether LC takes its yes/no consultations first."""

    seed: int = 0
    sizes: Literal["paper"] | dict[str, int | None] = "paper"
    # shared: CD, DD and CI from one set of civil cases every one of them can use (J1: all three from the same 93);
    # separate: each takes its own first eligible cases (more instances each, few cases in common)
    civil_cases: Literal["shared", "separate"] = "shared"
    # paper: an environment's preferred sources first (LC: consultations with a yes/no topic, nearer App C's mix);
    # sample: the seeded sample alone
    topic_mix: Literal["paper", "sample"] = "paper"

    @field_validator("sizes")
    @classmethod
    def _known(cls, value: Any) -> Any:
        if isinstance(value, dict) and set(value) - set(known_codes()):
            raise ValueError(f"unknown scenario(s) {sorted(set(value) - set(known_codes()))}; expected {known_codes()}")
        return value


class SimulateParams(Section):
    """Stage `j1_simulate`: which scenarios, how many dialogues at once, turn-cap overrides, transcripts written."""

    scenarios: list[str] = Field(default_factory=known_codes)
    concurrency: int = Field(default=64, ge=1)  # dialogues in flight; the model door bounds calls per endpoint
    max_turns: dict[str, int] = Field(default_factory=dict)  # scenario → cap (default: the paper's, spec §8.1)
    transcripts: int = Field(default=2, ge=0)  # per scenario, to reports/transcripts/<agent>/

    @model_validator(mode="after")
    def _known_scenarios(self) -> SimulateParams:
        unknown = (set(self.scenarios) | set(self.max_turns)) - set(known_codes())
        if unknown:
            raise ValueError(f"unknown scenario(s) {sorted(unknown)}; expected {known_codes()}")
        if any(cap < 1 for cap in self.max_turns.values()):
            raise ValueError("max_turns: a turn cap must be at least 1")
        return self


class J1ProcedureParams(Section):
    """The III-1 judge's first pass: exchanges labelled per call, earlier exchanges shown as context, and how
    much of each context utterance is shown."""

    window: int = Field(default=8, ge=1, le=50)  # exchanges labelled per call
    context: int = Field(default=6, ge=0, le=50)  # earlier exchanges shown before a window
    context_chars: int = Field(default=300, ge=20)  # each context utterance is cut to this length


class J1EvalParams(Section):
    """Stages `j1_judge` and `j1_report` (J1-EVAL, spec j1-envs §5, §9.3): the scoring choices where the paper
    is silent (defaults: the spec's recommendations), the procedure judge's windows, the paper's names for
    agents, and repeated runs reported as one."""

    strict_topics: bool = False  # I-1/I-2: a topic the client never raised scores 0 (default: skipped)
    penalty_normaliser: Literal["ratio", "clip"] = "ratio"  # III-4: d/(1+d) or min(d, 1)
    min_exchanges: int = Field(default=4, ge=1)  # UNI: a valid trial lasts at least this many exchanges
    call_failed: Literal["exclude", "score"] = "exclude"  # a dialogue broken outside the agent's control
    procedure: J1ProcedureParams = J1ProcedureParams()
    paper_names: dict[str, str] = Field(default_factory=dict)  # agent (or repeats group) -> model in J1 Table 3
    repeats: dict[str, list[str]] = Field(default_factory=dict)  # group -> agents that are repeats of one setup

    @field_validator("repeats")
    @classmethod
    def _groups(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for group, members in value.items():
            if len(set(members)) < 2:
                raise ValueError(f"repeats.{group}: a group needs at least two distinct agents, got {members}")
        return value

    def check_agents(self, agents: Sequence[str]) -> None:
        """Every agent a repeats group names must take part in J1."""
        for group, members in self.repeats.items():
            unknown = [m for m in members if m not in agents]
            if unknown:
                raise ValueError(f"eval.repeats.{group}: {unknown} not under agents ({', '.join(agents)})")


class J1Params(BenchmarkSection):
    PAPER: ClassVar[PaperProtocol] = PAPER
    ROLES: ClassVar[tuple[str, ...]] = ("environment", "judge")

    environment: RoleEntry | None = None  # over the paper's (protocol: paper) or the global environment
    judge: JudgeSetting = None
    extract: ExtractParams = ExtractParams()
    topics: TopicsParams = TopicsParams()
    personas: PersonasParams = PersonasParams()
    instances: InstancesParams = InstancesParams()
    simulate: SimulateParams = SimulateParams()
    eval: J1EvalParams = J1EvalParams()

    def check_agents(self, agents: Sequence[str]) -> None:
        self.eval.check_agents(agents)


SECTION = J1Params

"""Typed parameters: the model `params.yaml` is validated into (frozen pydantic models); flows.kit.config reads the
file and validates it, once, at the boundary.

`Params` holds the shared sections (sources, agents, runs, environment, judge, llm, stats) and one section per
benchmark. A benchmark's section lives in its own package: `steps/<benchmark>/params.py` defines the model and
names it `SECTION`; the packages that have one are the benchmarks (found on disk, below), so adding a benchmark
adds its section without an edit here. A stage reads a section through its model, `params.section(UclParams)`.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator
from pydantic_core import InitErrorDetails

import steps
from steps.llm import LLMSettings, ModelConfig
from steps.llm.config import ModelEntry, check_safe_name
from steps.protocol import ProtocolRecord
from steps.sections import BenchmarkSection, Section

S = TypeVar("S", bound=BenchmarkSection)


def benchmark_sections(
    roots: Sequence[Path] | None = None, package: str = "steps"
) -> dict[str, type[BenchmarkSection]]:
    """Each benchmark's section model by name: every package under steps/ (every path the package spans, or
    `roots`) with a `params.py`, whose `SECTION` validates the section of params.yaml named after the package (in
    alphabetical order)."""
    roots = roots or [Path(p) for p in steps.__path__]
    names = sorted(
        {p.parent.name for root in roots for p in root.glob("*/params.py") if (p.parent / "__init__.py").is_file()}
    )
    return {name: importlib.import_module(f"{package}.{name}.params").SECTION for name in names}


SECTIONS = benchmark_sections()
BENCHMARKS = tuple(SECTIONS)


class SourcesParams(Section):
    mirror: str | None = "../shared/data"
    download: bool = True
    timeout_s: float = 60.0

    def mirror_dir(self) -> Path | None:
        """The mirror directory: JURISFLOW_MIRROR if set, else `mirror` when that directory exists."""
        env = os.environ.get("JURISFLOW_MIRROR")
        if env:
            return Path(env)
        if self.mirror and Path(self.mirror).is_dir():
            return Path(self.mirror)
        return None


class StatsParams(Section):
    """The statistics of the reports (docs/statistics.md). `rho`: the correlation of two models' item scores the
    data card assumes for its smallest detectable differences of a paired comparison, in (−1, 1)."""

    rho: float = Field(default=0.5, gt=-1.0, lt=1.0)


def check_benchmarks(value: list[str]) -> list[str]:
    unknown = [b for b in value if b not in BENCHMARKS]
    if unknown:
        raise ValueError(
            f"unknown benchmark(s) {', '.join(map(repr, unknown))}; the benchmarks: {', '.join(BENCHMARKS)}"
        )
    return value


class AgentEntry(ModelEntry):
    """An agent under test: a model plus the benchmarks it takes part in (default: all) and its own cap on the
    units each benchmark sends it (`limit`: LawBench and UCL-Bench items per task, PLawBench tasks per scenario,
    MILE instances of the sample, J1 instances per scenario; the benchmark's own limit still applies, the
    smaller wins). Both are the agent's own keys, so changing them reruns only this agent's stages. `repeats`: how
    many independent runs each of its per-agent stages makes (docs/statistics.md#repeated-runs): repeat 0 is the run
    an agent without repeats makes, repeat i ≥ 1 (data/<benchmark>/runs/<agent>/repeat-<i>/) sends its own calls
    with the seed shifted by i (`for_repeat`)."""

    benchmarks: list[str] = Field(default_factory=lambda: list(BENCHMARKS))
    limit: int | None = Field(default=None, ge=1)
    repeats: int = Field(default=1, ge=1)

    @field_validator("benchmarks")
    @classmethod
    def _known(cls, value: list[str]) -> list[str]:
        return check_benchmarks(value)

    def resolve(self, name: str, repeat: int = 0) -> ModelConfig:
        """The agent as the door calls it in repeat `repeat` (0: as an agent without repeats; i ≥ 1: its own cache
        keys and run id, and the seed shifted by i, from 0 when none is set)."""
        config = ModelConfig(name=name, **self.model_dump(exclude={"benchmarks", "limit", "paper_model", "repeats"}))
        if not repeat:
            return config
        seed = (config.decoding.seed or 0) + repeat
        decoding = config.decoding.model_copy(update={"seed": seed})
        return config.model_copy(update={"repeat": repeat, "decoding": decoding})


def smaller(*limits: int | None) -> int | None:
    """The smallest of the limits that are set (None when none is)."""
    present = [n for n in limits if n is not None]
    return min(present) if present else None


class Params(Section):
    """The whole of params.yaml: the shared sections as fields, each benchmark's section (`SECTIONS`) as an
    extra field under its name, validated by its own model (absent: its defaults)."""

    model_config = ConfigDict(frozen=True, extra="allow")

    sources: SourcesParams = SourcesParams()
    agents: dict[str, AgentEntry] = Field(default_factory=dict)
    # which agents each benchmark's matrix stages run (dvc.yaml iterates these lists): derived from
    # agents.<name>.benchmarks, written by `jurisflow eval` / `jurisflow params sync`, checked on every load
    runs: dict[str, list[str]] | None = None
    environment: ModelEntry = ModelEntry(model="scripted/persona")
    judge: ModelEntry = ModelEntry(model="scripted/judge")
    llm: LLMSettings = LLMSettings()
    stats: StatsParams = StatsParams()
    _repeat_of: dict[str, int] = PrivateAttr(default_factory=dict)  # agent -> the repeat these parameters run

    @model_validator(mode="before")
    @classmethod
    def _benchmark_sections(cls, data: Any) -> Any:
        """Every benchmark's section validated by its model (errors keep their key path); any other key that is
        not a shared section is an error."""
        if not isinstance(data, Mapping):
            return data
        unknown = [k for k in data if k not in cls.model_fields and k not in SECTIONS]
        if unknown:
            raise ValueError(
                f"unknown section(s) {', '.join(map(repr, unknown))}; the sections: "
                f"{', '.join([*cls.model_fields, *SECTIONS])}"
            )
        out, errors = dict(data), []
        for name, model in SECTIONS.items():
            try:
                out[name] = model.model_validate(data.get(name) or {})
            except ValidationError as err:
                errors += [
                    InitErrorDetails(type=e["type"], loc=(name, *e["loc"]), input=e["input"], ctx=e.get("ctx", {}))
                    for e in err.errors()
                ]
        if errors:
            raise ValidationError.from_exception_data(cls.__name__, errors)
        return out

    @field_validator("agents", mode="before")
    @classmethod
    def _agent_names_are_paths(cls, value: Any) -> Any:
        """Agent names become directories (data/<benchmark>/runs/<agent>, reports/transcripts/<agent>): safe
        components only."""
        for name in value or {}:
            try:
                check_safe_name(name)
            except ValueError as err:
                raise ValueError(f"agent {err}") from None
        return value

    @field_validator("runs")
    @classmethod
    def _runs_of_benchmarks(cls, value: dict[str, list[str]] | None) -> dict[str, list[str]] | None:
        if value is not None:
            check_benchmarks(list(value))
        return value

    @model_validator(mode="after")
    def _runs_agree(self) -> Params:
        if self.runs is not None and self.runs != self.derived_runs():
            raise ValueError(
                f"runs must list, per benchmark, the agents whose `benchmarks` include it: expected "
                f"{self.derived_runs()}, found {self.runs}; run `jurisflow params sync` to rewrite it"
            )
        return self

    @model_validator(mode="after")
    def _sections_agree_with_agents(self) -> Params:
        """Each benchmark section's checks against the agents taking part in it (e.g. a UCL reference named like
        an agent, a J1 repeats group naming an agent that does not run J1)."""
        for name, agents in self.derived_runs().items():
            try:
                self.section_named(name).check_agents(agents)
            except ValueError as err:
                raise ValueError(f"{name}.{err}") from None
        return self

    def section_named(self, name: str) -> BenchmarkSection:
        """The section of benchmark `name` (prefer `section`, which names the model and so the dependency)."""
        return (self.__pydantic_extra__ or {})[name]

    def section(self, model: type[S]) -> S:
        """The benchmark section that `model` validates (e.g. `params.section(UclParams)`)."""
        for name, known in SECTIONS.items():
            if known is model:
                found = self.section_named(name)
                assert isinstance(found, model)
                return found
        raise KeyError(f"{model.__name__} is not the SECTION of any steps/<benchmark>/params.py")

    def derived_runs(self) -> dict[str, list[str]]:
        """Benchmark → the agents that take part in it, in `agents` order."""
        return {b: [n for n, e in self.agents.items() if b in e.benchmarks] for b in BENCHMARKS}

    def for_benchmark(self, benchmark: str) -> Params:
        """These parameters with only the agents that take part in `benchmark` (what its report shows)."""
        kept = {n: e for n, e in self.agents.items() if benchmark in e.benchmarks}
        return self.model_copy(update={"agents": kept})

    def limit_for(self, name: str, benchmark: str) -> int | None:
        """The effective cap of agent `name` on `benchmark`: its own `limit` and the benchmark's, the smaller."""
        own = self.agents[name].limit if name in self.agents else None
        return smaller(own, self.section_named(benchmark).shared_limit())

    def agent(self, name: str) -> ModelConfig:
        if name not in self.agents:
            raise ValueError(f"unknown agent '{name}'; params.yaml lists: {', '.join(self.agents) or 'none'}")
        return self.agents[name].resolve(name, self.repeat_of(name))

    def repeats(self, name: str) -> int:
        """How many runs agent `name` makes of each of its per-agent stages (`agents.<name>.repeats`; 1 if unknown)."""
        return self.agents[name].repeats if name in self.agents else 1

    def repeats_warning(self, name: str) -> str | None:
        """One line when agent `name` repeats its runs where its calls cannot vary (docs/statistics.md#repeated-runs):
        temperature 0, or a scripted model other than `scripted/sampler`; each repeat then sends the same request
        apart from its seed, and a deterministic server answers alike (a between-run SD of 0). A warning, not a
        refusal: the sampler and a seeded server that samples do vary. None otherwise."""
        k = self.repeats(name)
        if k <= 1:
            return None
        model = self.agents[name].resolve(name)
        temperature = model.decoding.temperature or 0.0
        if temperature > 0 and (not model.is_scripted or model.model == "scripted/sampler"):
            return None
        why = f"temperature {temperature:g}" if temperature == 0 else f"{model.model} answers alike whatever the seed"
        return (
            f"agents.{name}.repeats: {k} with {why}: the repeats are the same calls apart from the seed, so a "
            "deterministic endpoint answers them alike and the between-run SD is 0 (set decoding.temperature > 0 "
            "to sample)"
        )

    def repeat_of(self, name: str) -> int:
        """Which repeat of agent `name` these parameters run (0 unless `for_repeat` made them)."""
        return self._repeat_of.get(name, 0)

    def for_repeat(self, name: str, repeat: int) -> Params:
        """These parameters running repeat `repeat` of agent `name`: `agent(name)` gives that repeat's model (its
        seed shifted, its calls its own); repeat 0 gives these parameters unchanged."""
        if not repeat:
            return self
        copy = self.model_copy()
        copy._repeat_of = {**self._repeat_of, name: repeat}
        return copy

    def shared_roles(self) -> dict[str, ModelEntry]:
        """The global role entries a benchmark's own (or its paper's) override."""
        return {"environment": self.environment, "judge": self.judge}

    def role_model(self, benchmark: str, role: str) -> ModelConfig:
        """The model playing `role` in `benchmark` (steps/protocol.py: its own entry, the paper's under
        `protocol: paper`, the global one)."""
        return self.section_named(benchmark).role_model(role, self.shared_roles())

    def environment_model(self, benchmark: str) -> ModelConfig:
        return self.role_model(benchmark, "environment")

    def judge_model(self, benchmark: str) -> ModelConfig:
        return self.role_model(benchmark, "judge")

    def judge_panel(self, benchmark: str) -> list[ModelConfig] | None:
        """The members of `benchmark`'s judge panel, each resolved as a single judge would be (None: one judge)."""
        return self.section_named(benchmark).panel_models("judge", self.shared_roles())

    def benchmark_roles(self, benchmarks: Sequence[str] | None = None) -> list[tuple[str, str, ModelConfig]]:
        """(benchmark, role, model) for every role of `benchmarks` (None: all) besides the agents."""
        return [
            (b, role, self.role_model(b, role))
            for b in (benchmarks if benchmarks is not None else BENCHMARKS)
            for role in self.section_named(b).ROLES
        ]

    def role_models(self, benchmarks: Sequence[str] | None = None) -> list[ModelConfig]:
        """The distinct models playing the roles of `benchmarks` (None: all), each once."""
        seen: dict[str, ModelConfig] = {}
        for b, _, m in self.benchmark_roles(benchmarks):
            seen.setdefault(m.model_dump_json(exclude={"name"}), m)
            for member in self.judge_panel(b) or []:  # every judge of a panel (the first is the role's model)
                seen.setdefault(member.model_dump_json(exclude={"name"}), member)
        return list(seen.values())

    def protocol_record(
        self, benchmark: str, size: int | None = None, roles: Sequence[str] | None = None, agent: str | None = None
    ) -> ProtocolRecord:
        """The protocol `benchmark` runs with (its roles, or only `roles`, its settings and `size` beside its
        paper's; with `agent`, that agent as the benchmark sends it)."""
        section = self.section_named(benchmark)
        sent = section.agent_model(self.agent(agent)) if agent is not None else None
        return section.protocol_record(self.shared_roles(), size, roles, sent)

    def run_protocol(
        self, benchmark: str, size: int | None, roles: Sequence[str] = (), agent: str | None = None
    ) -> dict[str, Any]:
        """The `protocol_record` entry of a run.json: what the run's stage ran with (the `roles` it calls, and
        `agent` as it was sent) beside the paper's, the prompt templates' hashes, and its `size`."""
        return self.protocol_record(benchmark, size, roles, agent).as_dict()


def runs_of(agents: dict[str, Any] | None) -> dict[str, list[str]]:
    """The `runs` section for raw `agents` entries (as read from YAML): benchmark → the agents taking part."""
    agents = agents or {}
    return {b: [n for n, e in agents.items() if b in ((e or {}).get("benchmarks") or BENCHMARKS)] for b in BENCHMARKS}

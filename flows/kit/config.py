"""Typed parameters: `params.yaml` is validated once, here, into frozen pydantic models.

`Params` holds the shared sections (sources, agents, runs, environment, judge, llm) and one section per
benchmark. A benchmark's section lives in its own package: `steps/<benchmark>/params.py` defines the model and
names it `SECTION`; the packages that have one are the benchmarks (found on disk, below), so adding a benchmark
adds its section without an edit here. A stage reads a section through its model, `params.section(UclParams)`:
the import names the file its outputs depend on, so `tests/test_stage_deps.py` (a static import closure) puts
it in the stage's deps, and no stage depends on another benchmark's section.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import InitErrorDetails

import steps
from flows.kit import yaml_text
from steps.llm import LLMSettings, ModelConfig
from steps.llm.config import ModelEntry, check_safe_name
from steps.sections import BenchmarkSection, Section

PARAMS_FILE = Path("params.yaml")
MANIFEST_FILE = Path("sources.yaml")
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
    smaller wins). Both are the agent's own keys, so changing them reruns only this agent's stages."""

    benchmarks: list[str] = Field(default_factory=lambda: list(BENCHMARKS))
    limit: int | None = Field(default=None, ge=1)

    @field_validator("benchmarks")
    @classmethod
    def _known(cls, value: list[str]) -> list[str]:
        return check_benchmarks(value)

    def resolve(self, name: str) -> ModelConfig:
        return ModelConfig(name=name, **self.model_dump(exclude={"benchmarks", "limit", "paper_model"}))


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
        return self.agents[name].resolve(name)

    def environment_model(self) -> ModelConfig:
        return self.environment.resolve("environment")

    def judge_model(self) -> ModelConfig:
        return self.judge.resolve("judge")


def runs_of(agents: dict[str, Any] | None) -> dict[str, list[str]]:
    """The `runs` section for raw `agents` entries (as read from YAML): benchmark → the agents taking part."""
    agents = agents or {}
    return {b: [n for n, e in agents.items() if b in ((e or {}).get("benchmarks") or BENCHMARKS)] for b in BENCHMARKS}


class ParamsError(ValueError):
    """params.yaml is missing, is not YAML, or breaks a rule; the message is one line naming file, key and rule."""


def load_params(path: Path = PARAMS_FILE) -> Params:
    """Read and validate the parameters file (defaults apply to absent sections, never to an absent or empty file).

    Any problem raises a ParamsError of one line naming the file and, per problem, the key path and the rule
    (e.g. `params.yaml: agents.foo.concurrency: Input should be greater than or equal to 1`)."""
    data = read_params_data(path)
    try:
        return Params.model_validate(data)
    except ValidationError as err:
        problems = [_problem(e) for e in err.errors()]
        raise ParamsError(f"{path}: " + "; ".join(problems)) from None


def read_params_data(path: Path = PARAMS_FILE) -> dict[str, Any]:
    """The parameters file as a mapping of sections, before validation: a ParamsError of one line when it is
    missing, not UTF-8, not YAML, holds a key twice in one mapping (with its line), or holds no section at all
    (an empty file would silently run the scripted defaults)."""
    if not path.is_file():
        raise ParamsError(f"{path}: parameters file not found (every stage needs one; see README, Parameters)")
    try:
        text = path.read_text(encoding="utf-8")
        try:  # libyaml's parser; on an error, the pure-Python one's words and positions
            data = yaml_text.load(text, unique_keys=True)
        except yaml_text.DuplicateKeyError:
            raise
        except yaml.YAMLError:
            data = yaml_text.load(text, unique_keys=True, pure=True)
    except yaml_text.DuplicateKeyError as err:
        mark = err.problem_mark
        assert mark is not None
        raise ParamsError(
            f"{path}: line {mark.line + 1}: duplicate key {err.key_path(text)} (first at line {err.first_line}; YAML "
            "would silently keep the last, so one of the two settings is ignored)"
        ) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise ParamsError(f"{path}:{where}: not valid YAML: {problem}") from None
    except UnicodeDecodeError as err:
        raise ParamsError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    if data is not None and not isinstance(data, dict):
        raise ParamsError(f"{path}: the top level must be a mapping of sections, got {type(data).__name__}")
    if not data:
        raise ParamsError(
            f"{path}: empty (no section at all): refusing to run every stage on the built-in scripted defaults; "
            "write the sections you mean (see README, Parameters)"
        )
    return data


def _problem(error: Any) -> str:
    """One pydantic error as `key.path: rule`."""
    where = ".".join(str(part) for part in error["loc"] if not str(part).startswith("function-"))
    message = " ".join(error["msg"].removeprefix("Value error, ").split())
    return f"{where}: {message}" if where else message


def summary(params: Params) -> str:
    """A short description of loaded parameters for `jurisflow params check`."""
    agents = ", ".join(f"{name} ({entry.model}{_scope(entry)})" for name, entry in params.agents.items()) or "none"
    llm = params.llm
    return (
        f"agents: {agents}; environment: {params.environment.model}; judge: {params.judge.model}; "
        f"llm: concurrency {llm.concurrency}, timeout {llm.timeout_s:g} s, {llm.max_attempts} attempts, "
        f"retry budget {llm.retry_budget_s:g} s"
    )


def _scope(entry: AgentEntry) -> str:
    """`; lawbench, ucl; limit 3` when an agent does not run everything or is capped (for the summary)."""
    parts = [] if set(entry.benchmarks) == set(BENCHMARKS) else [", ".join(entry.benchmarks) or "no benchmark"]
    parts += [] if entry.limit is None else [f"limit {entry.limit}"]
    return "".join(f"; {p}" for p in parts)

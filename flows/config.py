"""Typed parameters: `params.yaml` is validated once, here, into frozen pydantic models."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from steps.llm import Decoding, LLMSettings, ModelConfig
from steps.llm.config import check_model_string, check_safe_name
from steps.mile.decoding import RoleDecodingSetting, check_setting, effective_decodings

PARAMS_FILE = Path("params.yaml")
MANIFEST_FILE = Path("sources.yaml")
CACHE_DIR = Path(".cache")


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SourcesParams(_Section):
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


class ModelEntry(_Section):
    """A model as written in params.yaml (the name comes from the key it is listed under)."""

    model: str
    api_base: str | list[str] | None = None
    api_key_env: str | None = None
    decoding: Decoding = Decoding()
    concurrency: int | None = Field(default=None, ge=1)
    timeout_s: float | None = Field(default=None, gt=0)
    # the paper model this agent corresponds to (its rows are shown under ours): a name, or one per benchmark.
    # Checked against the papers' model lists by `jurisflow params check` and by each report stage, not at load:
    # the lists live with the benchmarks, and every stage (the J1 simulation's code fingerprint too) would depend
    # on them.
    paper_model: str | dict[str, str] | None = None

    @field_validator("model")
    @classmethod
    def _known_provider(cls, value: str) -> str:
        return check_model_string(value)

    def resolve(self, name: str) -> ModelConfig:
        return ModelConfig(name=name, **self.model_dump(exclude={"paper_model"}))


def check_subset(value: list[str] | None) -> list[str] | None:
    """A non-empty list of distinct names (None: all of them). The stage that reads the data checks the names."""
    if value is not None and (not value or len(set(value)) != len(value)):
        raise ValueError("an empty or repeating list; give distinct names, or null for all")
    return value


BENCHMARKS = ("lawbench", "j1", "mile", "ucl", "plawbench")
Benchmark = Literal["lawbench", "j1", "mile", "ucl", "plawbench"]


class AgentEntry(ModelEntry):
    """An agent under test: a model plus the benchmarks it takes part in (default: all five) and its own cap on
    the units each benchmark sends it (`limit`: LawBench and UCL-Bench items per task, PLawBench tasks per
    scenario, MILE instances of the sample, J1 instances per scenario; the benchmark's own limit still applies,
    the smaller wins). Both are the agent's own keys, so changing them reruns only this agent's stages."""

    benchmarks: list[Benchmark] = Field(default_factory=lambda: list(BENCHMARKS))
    limit: int | None = Field(default=None, ge=1)

    def resolve(self, name: str) -> ModelConfig:
        return ModelConfig(name=name, **self.model_dump(exclude={"benchmarks", "limit", "paper_model"}))


def smaller(*limits: int | None) -> int | None:
    """The smallest of the limits that are set (None when none is)."""
    present = [n for n in limits if n is not None]
    return min(present) if present else None


class LawBenchParams(_Section):
    """Stages `lawbench_predict`: items per task sent to each agent (None: all 500; a smaller number for a
    quick smoke run, whose scores are then not comparable with the paper's)."""

    limit: int | None = Field(default=None, ge=1, le=500)
    tasks: list[str] | None = None  # task ids to run (e.g. [1-1, 3-1]); None: all 20

    @field_validator("tasks")
    @classmethod
    def _known_tasks(cls, value: list[str] | None) -> list[str] | None:
        return check_subset(value)


class ExtractParams(_Section):
    """Stage `extract`: how many judgments per source (None: all), model calls per case (1 + repair rounds), and
    the model that extracts (None: the environment model)."""

    limit: int | None = Field(default=None, ge=1)
    max_attempts: int = Field(default=2, ge=1, le=5)
    model: ModelEntry | None = None


class UclReference(ModelEntry):
    """The model whose dialogues every UCL agent is compared with, and the name the reports give it."""

    name: str = "reference"

    @field_validator("name")
    @classmethod
    def _safe_name(cls, value: str) -> str:
        return check_safe_name(value)

    def resolve_reference(self) -> ModelConfig:
        return ModelConfig(**self.model_dump(exclude={"paper_model"}))


class UclParams(_Section):
    """UCL-Bench stages: the reference model, the exchange cap (the paper's 3), the single-round variant,
    items per task (None: all 10 public items), judge repair rounds and the pointwise mode [ours]."""

    reference: UclReference = UclReference(name="scripted_null", model="scripted/null")
    max_exchanges: int = Field(default=3, ge=1, le=20)
    single_round: bool = False
    limit: int | None = Field(default=None, ge=1)
    tasks: list[str] | None = None  # task names to run (e.g. [Charge Prediction]); None: all 23
    judge_retries: int = Field(default=2, ge=0, le=5)
    pointwise: bool = True

    @field_validator("tasks")
    @classmethod
    def _known_tasks(cls, value: list[str] | None) -> list[str] | None:
        return check_subset(value)

    def exchanges(self) -> int:
        """The effective cap: 1 in the single-round variant."""
        return 1 if self.single_round else self.max_exchanges

    def check_names(self, agents: dict[str, ModelEntry]) -> None:
        if self.reference.name in agents:
            raise ValueError(f"ucl.reference.name '{self.reference.name}' is also an agent name; give it its own")


class MileParams(_Section):
    """Stages `mile_simulate` / `mile_judge` / `mile_report` (MASER/MILE, issue 9; spec maser-mile).

    `sample`: instances stratified by cause of action (None: all 693); `max_turns`: client–lawyer turns after
    the greetings (the released code's 15); `template`: the complaint template the lawyer drafts from (`eval`,
    the released evaluation template; `sta`, the one the STA judge checks against); `supervise`: `client`
    (MILE) or `both` (MASER's data-synthesis mode); the rest select the reference behaviours the spec lists."""

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
    # decoding per environment role merged over `environment.decoding` (steps/mile/decoding.py): paper | none |
    # {client|supervisor|classifier|styler|blur: {temperature, top_p, max_tokens, seed, extra}}
    role_decoding: RoleDecodingSetting = "paper"

    @field_validator("role_decoding", mode="before")
    @classmethod
    def _known_roles(cls, value: Any) -> Any:
        return check_setting(value)

    def role_decodings(self, environment: Decoding) -> dict[str, Decoding]:
        """The effective decoding of each environment role (client, supervisor, classifier, styler, blur)."""
        return effective_decodings(environment, self.role_decoding)


class PlawMultiturnParams(_Section):
    """Ours, not the paper's: the consultation task as a dialogue with a simulated client."""

    enabled: bool = True
    max_turns: int = Field(default=10, ge=1, le=50)


class PlawBenchParams(_Section):
    """Stages `plawbench_*`: sample size, prompt layout, consultation question counts, judge repairs, and the
    paper's name for agents whose alias or model string does not match it."""

    limit: int | None = Field(default=None, ge=1)  # tasks per scenario (15 scenarios); None: all 280
    scenarios: list[str] | None = None  # scenarios to run (e.g. [consultation, plaintiff]); None: all 15

    @field_validator("scenarios")
    @classmethod
    def _distinct(cls, value: list[str] | None) -> list[str] | None:
        return check_subset(value)

    split_system: bool = False  # instructions as a system message (default: one user message, as the repo)
    min_questions: int = Field(default=10, ge=1)
    max_questions: int = Field(default=25, ge=1)  # only the first N questions are judged (level mid)
    judge_repairs: int = Field(default=2, ge=0, le=5)  # re-asks after an invalid judge answer
    multiturn: PlawMultiturnParams = PlawMultiturnParams()
    paper_names: dict[str, str] = Field(default_factory=dict)  # agent -> model name in the paper's Table 3
    t1_penalties: Literal["none", "paper"] = "none"  # paper: also apply Table 8's T1 penalties (ours, reported apart)

    @model_validator(mode="after")
    def _question_bounds(self) -> PlawBenchParams:
        if self.min_questions > self.max_questions:
            raise ValueError("plawbench.min_questions must not exceed plawbench.max_questions")
        return self


# ---------------------------------------------------------------- J1 environments (issues 6, 7)
J1_SCENARIOS = ("KQ", "LC", "CD", "DD", "CI", "CR")
PAPER_SIZES = {"KQ": 98, "LC": 62, "CD": 93, "DD": 93, "CI": 93, "CR": 69}  # J1 Table 5


class TopicsParams(_Section):
    """Stage `topics`: KQ/LC topic lists. `derived` applies our rules to LawBench 1-1/1-2/3-8 (offline); `llm`
    has the environment model read each source and write the topics, occupation and theme (J1's procedure)."""

    method: Literal["derived", "llm"] = "derived"
    articles_per_instance: int = Field(default=4, ge=2, le=10)  # LawBench 1-1 articles grouped per KQ instance
    llm_limit: int | None = Field(default=None, ge=1)  # llm: sources per scenario sent to the model (None: all)
    seed: int = 0  # the clients' occupations and names


class PersonasParams(_Section):
    """Stage `personas`: the seed of the 2:1:2 redistribution, the legal-sense level and the distractors."""

    seed: int = 0


class InstancesParams(_Section):
    """Stages `personas` and `instances`: instances per scenario (None: every eligible source; "paper": J1's
    Table 5 counts) and the seed of the sample."""

    seed: int = 0
    sizes: Literal["paper"] | dict[str, int | None] = "paper"

    @field_validator("sizes")
    @classmethod
    def _known(cls, value: Any) -> Any:
        if isinstance(value, dict) and set(value) - set(J1_SCENARIOS):
            raise ValueError(f"unknown scenario(s) {sorted(set(value) - set(J1_SCENARIOS))}; expected {J1_SCENARIOS}")
        return value

    def resolved(self) -> dict[str, int | None]:
        """Scenario → size, in J1's order."""
        sizes = PAPER_SIZES if self.sizes == "paper" else self.sizes
        return {s: sizes[s] for s in J1_SCENARIOS if s in sizes}


class SimulateParams(_Section):
    """Stage `simulate`: which scenarios, how many dialogues at once, turn-cap overrides, transcripts written."""

    scenarios: list[str] = list(J1_SCENARIOS)
    concurrency: int = Field(default=64, ge=1)  # dialogues in flight; the model door bounds calls per endpoint
    max_turns: dict[str, int] = Field(default_factory=dict)  # scenario → cap (default: the paper's, spec §8.1)
    transcripts: int = Field(default=2, ge=0)  # per scenario, to reports/transcripts/<agent>/

    @model_validator(mode="after")
    def _known_scenarios(self) -> SimulateParams:
        unknown = (set(self.scenarios) | set(self.max_turns)) - set(J1_SCENARIOS)
        if unknown:
            raise ValueError(f"unknown scenario(s) {sorted(unknown)}; expected {J1_SCENARIOS}")
        if any(cap < 1 for cap in self.max_turns.values()):
            raise ValueError("max_turns: a turn cap must be at least 1")
        return self


# ---------------------------------------------------------------- J1-EVAL (issue 8)
class J1ProcedureParams(_Section):
    """The III-1 judge's first pass: exchanges labelled per call, earlier exchanges shown as context, and how
    much of each context utterance is shown."""

    window: int = Field(default=8, ge=1, le=50)
    context: int = Field(default=6, ge=0, le=50)
    context_chars: int = Field(default=300, ge=20)


class J1EvalParams(_Section):
    """Stages `judge` and `aggregate` (J1-EVAL, spec j1-envs §5, §9.3): the scoring choices where the paper is
    silent, the procedure judge's windows, the paper's names for agents, and repeated runs reported as one."""

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

    def check_agents(self, agents: dict[str, ModelEntry]) -> None:
        """Every agent a repeats group names must be listed under `agents`."""
        for group, members in self.repeats.items():
            unknown = [m for m in members if m not in agents]
            if unknown:
                raise ValueError(f"j1eval.repeats.{group}: {unknown} not under agents ({', '.join(agents)})")


class Params(_Section):
    sources: SourcesParams = SourcesParams()
    agents: dict[str, AgentEntry] = Field(default_factory=dict)
    # which agents each benchmark's matrix stages run (dvc.yaml iterates these lists): derived from
    # agents.<name>.benchmarks, written by `jurisflow eval` / `jurisflow params sync`, checked on every load
    runs: dict[Benchmark, list[str]] | None = None
    environment: ModelEntry = ModelEntry(model="scripted/persona")
    judge: ModelEntry = ModelEntry(model="scripted/judge")
    llm: LLMSettings = LLMSettings()
    extract: ExtractParams = ExtractParams()
    lawbench: LawBenchParams = LawBenchParams()
    ucl: UclParams = UclParams()
    mile: MileParams = MileParams()
    plawbench: PlawBenchParams = PlawBenchParams()
    topics: TopicsParams = TopicsParams()
    personas: PersonasParams = PersonasParams()
    instances: InstancesParams = InstancesParams()
    simulate: SimulateParams = SimulateParams()
    j1eval: J1EvalParams = J1EvalParams()

    @field_validator("agents", mode="before")
    @classmethod
    def _agent_names_are_paths(cls, value: Any) -> Any:
        """Agent names become directories (data/runs/<agent>, reports/transcripts/<agent>): safe components only."""
        for name in value or {}:
            try:
                check_safe_name(name)
            except ValueError as err:
                raise ValueError(f"agent {err}") from None
        return value

    @model_validator(mode="after")
    def _runs_agree(self) -> Params:
        if self.runs is not None and self.runs != self.derived_runs():
            raise ValueError(
                f"runs must list, per benchmark, the agents whose `benchmarks` include it: expected "
                f"{self.derived_runs()}, found {self.runs}; run `jurisflow params sync` to rewrite it"
            )
        return self

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
        shared = {"lawbench": self.lawbench.limit, "ucl": self.ucl.limit, "plawbench": self.plawbench.limit}
        return smaller(own, shared.get(benchmark))

    def agent(self, name: str) -> ModelConfig:
        if name not in self.agents:
            raise ValueError(f"unknown agent '{name}'; params.yaml lists: {', '.join(self.agents) or 'none'}")
        return self.agents[name].resolve(name)

    def paper_model(self, name: str, benchmark: str, names: dict[str, tuple[str, ...]]) -> str | None:
        """The paper's name of the model agent `name` corresponds to in `benchmark` (`agents.<name>.paper_model`,
        resolved against that paper's `names`), or None."""
        from steps.reports.labels import paper_model_name

        try:
            return paper_model_name(self.agents[name].paper_model, benchmark, names)
        except ValueError as err:
            raise ValueError(f"agents.{name}.{err}") from None

    def environment_model(self) -> ModelConfig:
        return self.environment.resolve("environment")

    def extraction_model(self) -> ModelConfig:
        """`extract.model`, or the environment model when it is not set."""
        return self.extract.model.resolve("extract") if self.extract.model else self.environment_model()

    def judge_model(self) -> ModelConfig:
        return self.judge.resolve("judge")


def runs_of(agents: dict[str, Any] | None) -> dict[str, list[str]]:
    """The `runs` section for raw `agents` entries (as read from YAML): benchmark → the agents taking part."""
    agents = agents or {}
    return {b: [n for n, e in agents.items() if b in ((e or {}).get("benchmarks") or BENCHMARKS)] for b in BENCHMARKS}


class ParamsError(ValueError):
    """params.yaml is missing, is not YAML, or breaks a rule; the message is one line naming file, key and rule."""


def load_params(path: Path = PARAMS_FILE) -> Params:
    """Read and validate the parameters file (defaults apply to absent sections, never to an absent file).

    Any problem raises a ParamsError of one line naming the file and, per problem, the key path and the rule
    (e.g. `params.yaml: agents.foo.concurrency: Input should be greater than or equal to 1`)."""
    if not path.is_file():
        raise ParamsError(f"{path}: parameters file not found (every stage needs one; see README, Parameters)")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise ParamsError(f"{path}:{where}: not valid YAML: {problem}") from None
    except UnicodeDecodeError as err:
        raise ParamsError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    if data is not None and not isinstance(data, dict):
        raise ParamsError(f"{path}: the top level must be a mapping of sections, got {type(data).__name__}")
    try:
        return Params.model_validate(data or {})
    except ValidationError as err:
        problems = [_problem(e) for e in err.errors()]
        raise ParamsError(f"{path}: " + "; ".join(problems)) from None


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
    parts = [] if list(entry.benchmarks) == list(BENCHMARKS) else [", ".join(entry.benchmarks) or "no benchmark"]
    parts += [] if entry.limit is None else [f"limit {entry.limit}"]
    return "".join(f"; {p}" for p in parts)

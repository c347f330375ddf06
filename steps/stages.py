"""A stage, declared once: `Stage(...)` in its benchmark's registration (`steps/<benchmark>/benchmark.py`, field
`stages`), or among the kernel's shared stages (`steps/pipeline.py`).

A declaration names the stage, whether it runs once per agent (and per setting), what it reads and writes, the
params.yaml keys it depends on, and its body: a function `body(ctx: StageContext) -> str` (named as
"module:function", loaded only when the stage runs) that returns the stage's one-line summary. Everything else
derives from the declarations: dvc.yaml (written by `jurisflow stages write`, checked by a test), the `jurisflow`
stage commands, the targets of `jurisflow eval`, the Prefect flow of each stage (flows/run.py) and `jurisflow
estimate`, which runs the same bodies against a stand-in model door (flows/estimate.py).

A body does no I/O of its own and imports no Prefect: it reads, writes, calls models, reports progress and
publishes through its `StageContext`, which the flow (or the estimate) provides.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable, Coroutine, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow

    from steps.llm import Completer, ModelConfig
    from steps.llm.tokenizer import ServerTokenizer
    from steps.params import Params
    from steps.paths import Paths
    from steps.simulate.journal import Journal

T = TypeVar("T")
R = TypeVar("R")

AGENT, SETTING = "{agent}", "{setting}"  # placeholders in a declaration's paths and params keys


@dataclass(frozen=True)
class Stage:
    """One DVC stage and its Prefect flow.

    `agents` names the benchmark whose `runs.<benchmark>` list (params.yaml) the stage iterates, one stage per
    agent (None: the stage runs once); `settings` adds a second matrix key (LawBench's zero_shot, one_shot).
    `reads` and `writes` are paths relative to the project (with `{agent}` and `{setting}` placeholders):
    DVC's deps and outs. `reports` are outputs kept in git rather than the DVC cache (`cache: false`: reports,
    CSV twins, plot data), `metrics` the DVC metrics files among them. `params` are the params.yaml keys it
    depends on. `code` is what its code deps add to its own package and the kernel packages it imports (found by
    `flows/dvc_yaml.py`). `calls_models`: `jurisflow estimate` runs it (with the stages between it and the stages
    before it that call models). `roles` are the shared model roles it calls besides the agent ("environment",
    "judge"): its flow run is tagged with their models. `seat` names a function ("module:function", given the
    `Params`) returning the model a stage that is not per agent runs in the agent's seat (UCL's reference)."""

    name: str
    body: str
    help: str
    agents: str | None = None
    settings: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    reports: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    params: tuple[str, ...] = ()
    code: tuple[str, ...] = ()
    calls_models: bool = False
    roles: tuple[str, ...] = ()
    seat: str | None = None

    @property
    def per_agent(self) -> bool:
        return self.agents is not None

    @property
    def module(self) -> str:
        return self.body.partition(":")[0]

    def run_body(self, ctx: StageContext) -> str:
        module, _, function = self.body.partition(":")
        return getattr(importlib.import_module(module), function)(ctx)

    def arguments(self) -> tuple[str, ...]:
        """The command-line arguments of the stage, in order: `agent` (per agent), `setting` (per setting)."""
        return (("agent",) if self.per_agent else ()) + (("setting",) if self.settings else ())

    def target(self, agent: str | None = None, setting: str | None = None) -> str:
        """The DVC name of this stage for one agent (and setting): `lawbench_predict@oracle-zero_shot`."""
        if not self.per_agent:
            return self.name
        return f"{self.name}@{agent}" + (f"-{setting}" if self.settings else "")

    def targets(self, agent: str) -> list[str]:
        """Every DVC name of this stage for one agent (each of its settings)."""
        if not self.per_agent:
            return [self.name]
        return [self.target(agent, s) for s in self.settings] if self.settings else [self.target(agent)]

    def outputs(self, agent: str | None = None, setting: str | None = None) -> list[str]:
        """Every output path (`writes`, `reports`, `metrics`) with the placeholders filled in."""
        return [fill(p, agent, setting) for p in (*self.writes, *self.reports, *self.metrics)]

    def inputs(self, agent: str | None = None, setting: str | None = None) -> list[str]:
        return [fill(p, agent, setting) for p in self.reads]


def fill(template: str, agent: str | None = None, setting: str | None = None) -> str:
    """A declared path (or params key) with `{agent}` and `{setting}` replaced."""
    out = template
    if agent is not None:
        out = out.replace(AGENT, agent)
    if setting is not None:
        out = out.replace(SETTING, setting)
    return out


class ModelSession(Protocol):
    """What a stage's model calls go through: the door, the run's resume journal (dialogue stages), the counts."""

    @property
    def door(self) -> Completer: ...

    @property
    def journal(self) -> Journal | None: ...

    @property
    def calls(self) -> int: ...

    @property
    def hits(self) -> int: ...

    def usage(self) -> pd.DataFrame:
        """The calls so far as the tracked usage table (what `check_calls` reads where no usage file is written)."""
        ...


class StageContext(Protocol):
    """Everything a stage body does besides computing: given by the flow that runs it (flows/kit/context.py) or by
    `jurisflow estimate` (which writes into a scratch folder and answers every call with a stand-in)."""

    params: Params
    paths: Paths
    agent_name: str | None
    setting: str | None

    # tables and files
    def read_table(self, path: Path, schema: type) -> pd.DataFrame: ...

    def write_table(
        self,
        df: pd.DataFrame,
        path: Path,
        schema: type,
        *,
        table: str,
        arrow_types: Mapping[str, pyarrow.DataType] | None = None,
    ) -> pd.DataFrame: ...

    def write_text(self, path: Path, text: str) -> None: ...

    def exists(self, path: Path) -> bool: ...

    def input_path(self, path: Path) -> Path:
        """Where to read `path` from (the estimate's scratch copy when it made one)."""
        ...

    def output_path(self, path: Path) -> Path:
        """Where to write `path` (a folder or a file the stage writes itself)."""
        ...

    # runs
    def begin_run(self, directory: Path, spec: dict[str, Any]) -> str: ...

    def write_run_json(self, directory: Path, spec: dict[str, Any]) -> str: ...

    # models
    def model_session(
        self,
        run_id: str,
        *,
        usage: Path | None = None,
        journal: Path | None = None,
        models: Iterable[ModelConfig] = (),
    ) -> AbstractContextManager[ModelSession]: ...

    def check_calls(
        self, *usage: Path | pd.DataFrame, judged: Sequence[Path | pd.DataFrame] = (), limits: Iterable[str] = ()
    ) -> None: ...

    def served_tokenizer(self, model: ModelConfig) -> ServerTokenizer | None:
        """The tokenizer of the server that serves `model` (vLLM's or llama.cpp's `/tokenize`), else None; the
        estimate, offline, always None (the character rule). The caller closes it."""
        ...

    # progress and monitoring
    def counter(self, description: str, total: int) -> AbstractContextManager[Callable[..., None]]: ...

    def track(self, items: Iterable[T], description: str, total: int | None = None) -> Iterator[T]: ...

    def task(self, fn: Callable[..., R], name: str | None = None) -> Callable[..., R]:
        """`fn` as a unit of work the monitor shows (a Prefect task run), called as `fn` would be."""
        ...

    def gather_groups(
        self,
        items: Sequence[T],
        group_of: Callable[[T], Hashable],
        run: Callable[[list[T]], Awaitable[list[R]]],
        label: Callable[[Hashable], str],
    ) -> Coroutine[Any, Any, list[R]]:
        """Run `run` on each group of `items` concurrently, each group a unit the monitor shows; results in the
        order of `items`."""
        ...

    def follow_groups(
        self,
        sizes: dict[str, int],
        work: Callable[[Callable[[str], None]], Awaitable[R]],
        members: Mapping[str, str] | None = None,
    ) -> Coroutine[Any, Any, R]:
        """Run `work` once, with one unit per group that ends when `work` calls `done(group)` `sizes[group]`
        times; `members` (instance id → group) tells the monitor which group a model call belongs to."""
        ...

    def publish_table(self, key: str, rows: list[dict[str, Any]], description: str) -> None: ...

    def publish_markdown(self, key: str, markdown: str, description: str) -> None: ...

    def log(self, message: str) -> None: ...


__all__ = ["AGENT", "SETTING", "ModelSession", "Stage", "StageContext", "fill"]

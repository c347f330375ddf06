"""The `StageContext` a stage body gets inside its Prefect flow (steps/stages.py): the project's tables and files,
run records, the model door with its accounting, progress bars, Prefect task runs and artifacts."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from flows.kit import models, monitor, progress
from steps import runs, tables

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow

    from steps.llm import ModelConfig
    from steps.llm.tokenizer import ServerTokenizer
    from steps.params import Params
    from steps.paths import Paths
    from steps.stages import ModelSession

T = TypeVar("T")
R = TypeVar("R")


@dataclass
class FlowContext:
    """A stage's context in its flow run (or called directly, outside any run: then no task runs or artifacts)."""

    params: Params
    paths: Paths
    agent_name: str | None = None
    setting: str | None = None

    # tables and files
    def read_table(self, path: Path, schema: type) -> pd.DataFrame:
        return tables.read_table(path, schema)

    def write_table(
        self,
        df: pd.DataFrame,
        path: Path,
        schema: type,
        *,
        table: str,
        arrow_types: Mapping[str, pyarrow.DataType] | None = None,
    ) -> pd.DataFrame:
        return tables.write_table(df, path, schema, table=table, arrow_types=dict(arrow_types or {}) or None)

    def write_text(self, path: Path, text: str) -> None:
        tables.write_text_atomic(path, text)

    def exists(self, path: Path) -> bool:
        return path.exists()

    def input_path(self, path: Path) -> Path:
        return path

    def output_path(self, path: Path) -> Path:
        return path

    # runs
    def begin_run(self, directory: Path, spec: dict[str, Any]) -> str:
        return runs.begin_run(directory, spec)

    def write_run_json(self, directory: Path, spec: dict[str, Any]) -> str:
        warning = self.params.repeats_warning(self.agent_name) if self.agent_name else None  # repeats that can't vary
        return runs.write_run_json(directory, spec, [warning] if warning else ())

    # models
    def model_session(
        self,
        run_id: str,
        *,
        usage: Path | None = None,
        journal: Path | None = None,
        models: Iterable[ModelConfig] = (),
    ) -> AbstractContextManager[ModelSession]:
        return _model_session(self.params, run_id, usage=usage, journal=journal, models=models)

    def check_calls(
        self, *usage: Path | pd.DataFrame, judged: Sequence[Path | pd.DataFrame] = (), limits: Iterable[str] = ()
    ) -> None:
        models.check_calls(self.params, *usage, judged=judged, limits=limits)

    def served_tokenizer(self, model: ModelConfig) -> ServerTokenizer | None:
        from steps.llm.tokenizer import server_tokenizer

        return server_tokenizer(model)

    # progress and monitoring
    def counter(self, description: str, total: int) -> AbstractContextManager[Callable[..., None]]:
        return progress.counter(description, total)

    def track(self, items: Iterable[T], description: str, total: int | None = None) -> Iterator[T]:
        return progress.track(items, description, total)

    def task(self, fn: Callable[..., R], name: str | None = None) -> Callable[..., R]:
        from prefect import task
        from prefect.cache_policies import NO_CACHE
        from prefect.context import FlowRunContext

        if FlowRunContext.get() is None:
            return fn
        return task(name=name or fn.__name__, cache_policy=NO_CACHE)(fn)

    def gather_groups(
        self,
        items: Sequence[T],
        group_of: Callable[[T], Hashable],
        run: Callable[[list[T]], Awaitable[list[R]]],
        label: Callable[[Hashable], str],
    ) -> Coroutine[Any, Any, list[R]]:
        return monitor.gather_groups(items, group_of, run, label)

    def follow_groups(
        self,
        sizes: dict[str, int],
        work: Callable[[Callable[[str], None]], Awaitable[R]],
        members: Mapping[str, str] | None = None,
    ) -> Coroutine[Any, Any, R]:
        return monitor.follow_groups(sizes, work, members)

    def publish_table(self, key: str, rows: list[dict[str, Any]], description: str) -> None:
        monitor.publish_table(key, rows, description)

    def publish_markdown(self, key: str, markdown: str, description: str) -> None:
        monitor.publish_markdown(key, markdown, description)

    def log(self, message: str) -> None:
        monitor.log(message)


def _model_session(params: Params, run_id: str, **kwargs: Any) -> AbstractContextManager[ModelSession]:
    return models.model_session(params, run_id, **kwargs)

"""Rich progress bars for long loops inside flows (terminal only; Prefect shows task states)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

T = TypeVar("T")
_console = Console(stderr=True)
_COLUMNS = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TimeRemainingColumn())


def track(items: Iterable[T], description: str, total: int | None = None) -> Iterator[T]:
    """Iterate with a progress bar on stderr; the bar disappears when the loop ends."""
    with Progress(*_COLUMNS, console=_console, transient=True) as progress:
        task = progress.add_task(description, total=total if total is not None else _len(items))
        for item in items:
            yield item
            progress.advance(task)


@contextmanager
def counter(description: str, total: int):
    """A progress bar advanced by calling the yielded function (e.g. once per model reply)."""
    with Progress(*_COLUMNS, console=_console, transient=True) as progress:
        task = progress.add_task(description, total=total)
        yield lambda *_: progress.advance(task)


def _len(items: Iterable) -> int | None:
    try:
        return len(items)  # type: ignore[arg-type]
    except TypeError:
        return None

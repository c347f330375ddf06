"""Progress of long loops inside flows: a rich bar on the terminal, and in a Prefect run a line in the run's logs
at every tenth of the way (`lawbench oracle: 1,000/2,000 (50%)`) and at the end."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sized
from contextlib import contextmanager
from typing import TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

T = TypeVar("T")
_console = Console(stderr=True)
_COLUMNS = (
    TextColumn("[bold]{task.description}"),
    BarColumn(),
    MofNCompleteColumn(),
    TimeElapsedColumn(),
    TimeRemainingColumn(),
)


class _RunLog:
    """Progress lines for the current Prefect run's logs: one per tenth of `total`, and one at the end."""

    def __init__(self, description: str, total: int | None):
        from flows.kit.monitor import run_logger

        self.logger, self.description, self.total, self.done, self.next_tenth = run_logger(), description, total, 0, 1

    def advance(self) -> None:
        self.done += 1
        if self.logger is None or not self.total:
            return
        if self.done * 10 >= self.next_tenth * self.total:
            self.next_tenth = self.done * 10 // self.total + 1
            self.logger.info(f"{self.description}: {self.done:,}/{self.total:,} ({100 * self.done // self.total}%)")

    def end(self) -> None:
        if self.logger is not None and (not self.total or self.done < self.total):
            self.logger.info(f"{self.description}: {self.done:,} done")


def track(items: Iterable[T], description: str, total: int | None = None) -> Iterator[T]:
    """Iterate with a progress bar on stderr; the bar disappears when the loop ends."""
    total = total if total is not None else _len(items)
    log = _RunLog(description, total)
    with Progress(*_COLUMNS, console=_console, transient=True) as progress:
        task = progress.add_task(description, total=total)
        for item in items:
            yield item
            progress.advance(task)
            log.advance()
    log.end()


@contextmanager
def counter(description: str, total: int):
    """A progress bar advanced by calling the yielded function (e.g. once per model reply)."""
    log = _RunLog(description, total)
    with Progress(*_COLUMNS, console=_console, transient=True) as progress:
        task = progress.add_task(description, total=total)

        def advance(*_) -> None:
            progress.advance(task)
            log.advance()

        yield advance
    log.end()


def _len(items: Iterable) -> int | None:
    return len(items) if isinstance(items, Sized) else None

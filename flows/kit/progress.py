"""Progress of a stage, on the terminal and in its Prefect run's logs.

A stage (`stage(label)`, opened by flows/kit/stage.py around its flow) counts what its loops did (`counter`, `track`),
per group of a loop (a LawBench task, a J1 environment: flows/kit/monitor.py opens them) and the model calls of its
doors (flows/kit/models.py hands `Meter.call` to each door it opens; a call made inside a group counts for it too).

- On a terminal (stderr is a TTY): a live rich display, refreshed twice a second, of the stage, its open loop and
  the loop's groups: items done of the total, calls (cached, failed), tokens, elapsed time and ETA.
- Otherwise (DVC's logs, CI, a pipe): plain lines on stderr, one per tenth of a loop (at most one a second) and at
  least every JURISFLOW_PROGRESS_INTERVAL_S seconds (10) while anything runs, so a long stage is never silent.
- Both: one line when a loop ends, and `Meter.summary` is the stage's closing line (items done, calls, cached,
  failed, tokens, seconds), printed by flows/kit/stage.py whether the stage succeeded or not.
- In a Prefect run, a line in the run's logs at every tenth of a loop and at its end.
"""

from __future__ import annotations

import contextvars
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sized
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, ProgressColumn, Task, TaskID, TextColumn, TimeElapsedColumn
from rich.text import Text

from steps.llm.results import FailureKind
from steps.tables import natural_key

if TYPE_CHECKING:
    from steps.llm.results import UsageRecord

T = TypeVar("T")

INTERVAL_ENV = "JURISFLOW_PROGRESS_INTERVAL_S"
INTERVAL_S = 10.0  # the longest silence of plain progress output while a stage runs
TENTH_GAP_S = 1.0  # plain lines at each tenth of a loop, at most one per this many seconds (or per interval_s())
HEARTBEAT_MIN_S = 1.0  # the heartbeat's shortest interval, whatever JURISFLOW_PROGRESS_INTERVAL_S says
GROUPS_SHOWN = 6  # unfinished groups named on a plain line


def interval_s() -> float:
    """The longest silence of plain progress lines (JURISFLOW_PROGRESS_INTERVAL_S, else INTERVAL_S; at least
    HEARTBEAT_MIN_S); 0 also prints a line at every tenth of a loop however close together (the tests)."""
    try:
        return max(0.0, float(os.environ.get(INTERVAL_ENV, INTERVAL_S)))
    except ValueError:
        return INTERVAL_S


def clock(seconds: float) -> str:
    """`0:07`, `12:30`, `1:02:03`."""
    s = max(0, round(seconds))
    h, m = divmod(s // 60, 60)
    return f"{h}:{m:02d}:{s % 60:02d}" if h else f"{m}:{s % 60:02d}"


@dataclass
class Tally:
    """What one unit of a stage did: the stage itself, a loop (`counter`) or a group of a loop."""

    label: str
    total: int | None = None
    done: int = 0
    calls: int = 0
    cached: int = 0
    failed: int = 0
    over_context: int = 0  # `context_exceeded` calls: the stage's check says whether each is the agent's limit
    tokens: int = 0
    new_tokens: int = 0  # of calls not answered from the cache
    tenth: int = 0  # the last tenth of `total` a plain line reported
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None
    groups: dict[str, Tally] = field(default_factory=dict)
    begun: bool = False  # a group's first model call has started (`began`)
    on_begin: list[Callable[[], None]] = field(default_factory=list, repr=False)  # told once, when it begins

    def begin(self) -> None:
        """The unit's first call started: tell `on_begin` (once)."""
        if not self.begun:
            self.begun = True
            for tell in self.on_begin:
                tell()

    def add_call(self, record: UsageRecord) -> None:
        tokens = record.prompt_tokens + record.completion_tokens
        self.calls += 1
        self.cached += bool(record.cache_hit)
        if record.failure_kind == FailureKind.CONTEXT_EXCEEDED:
            self.over_context += 1
        else:
            self.failed += record.failure_kind is not None
        self.tokens += tokens
        self.new_tokens += 0 if record.cache_hit else tokens

    def elapsed(self) -> float:
        return (self.ended or time.monotonic()) - self.started

    def eta_s(self) -> float | None:
        """Seconds left at the pace so far (None before the first item or without a total)."""
        if not self.total or not self.done:
            return None
        return max(0, self.total - self.done) * self.elapsed() / self.done

    def counts_text(self) -> str:
        """`38 cached, 2 failed` (and `, 1 over the context` when a request was longer than the model's context)."""
        over = f", {self.over_context:,} over the context" if self.over_context else ""
        return f"{self.cached:,} cached, {self.failed:,} failed{over}"

    def calls_text(self) -> str:
        return f"{self.calls:,} calls ({self.counts_text()}), {self.tokens:,} tokens"

    def line(self) -> str:
        """One plain line: `lawbench oracle zero_shot: 12/40 (30%), 12 calls (0 cached, 0 failed), 4,000 tokens,
        0:03, ETA 0:07; groups 3/20 done, running 2-1 1/2, …`."""
        parts = [f"{self.label}: {self.items()}"]
        if self.calls:
            parts.append(self.calls_text())
        parts.append(clock(self.elapsed()))
        if self.ended is None and self.total:
            eta = self.eta_s()
            parts.append(f"ETA {clock(eta)}" if eta is not None else "ETA ?")
        out = ", ".join(parts)
        if self.groups:
            out += "; " + self.groups_text()
        return out

    def items(self) -> str:
        if self.total is None:
            return f"{self.done:,} done"
        pct = f" ({100 * self.done // self.total}%)" if self.total else ""
        return f"{self.done:,}/{self.total:,}{pct}"

    def groups_text(self) -> str:
        groups = list(self.groups.values())
        finished = sum(g.total is not None and g.done >= g.total for g in groups)
        running = [g for g in groups if g.total is None or g.done < g.total]
        named = ", ".join(
            f"{g.label} {g.items().split(' (')[0]}" + (f" ({g.failed} failed)" if g.failed else "")
            for g in running[:GROUPS_SHOWN]
        )
        more = f", … {len(running) - GROUPS_SHOWN} more" if len(running) > GROUPS_SHOWN else ""
        return f"groups {finished}/{len(groups)} done" + (f", running {named}{more}" if running else "")


# the group whose work runs in this context (set per group by flows/kit/monitor.py): its calls and items count for it
_GROUP: contextvars.ContextVar[Tally | None] = contextvars.ContextVar("jurisflow_progress_group", default=None)


class _Display(Protocol):
    def add(self, tally: Tally, indent: int) -> None: ...

    def advanced(self, tally: Tally) -> None: ...

    def remove(self, tally: Tally) -> None: ...

    def say(self, line: str) -> None: ...

    def stop(self) -> None: ...


class Meter:
    """The progress of one stage (one per process at a time: `stage`)."""

    def __init__(self, label: str, display: _Display | None = None):
        self.stage = Tally(label)
        self.units: list[Tally] = []  # every loop, in order
        self.active: Tally | None = None  # the loop that runs now
        self.lock = threading.RLock()
        self.last_line = time.monotonic()
        self.display: _Display = display or _display(self)

    # ------------------------------------------------------------------ what the stage does
    def call(self, record: UsageRecord) -> None:
        """One model call was accounted (a door's observer): it counts for the stage, its loop and its group."""
        with self.lock:
            for tally in self._path():
                tally.add_call(record)

    def _path(self) -> list[Tally]:
        group = _GROUP.get()
        return [t for t in (self.stage, self.active, group) if t is not None]

    @contextmanager
    def loop(self, description: str, total: int | None) -> Iterator[Callable[..., None]]:
        """A loop of `total` items: yields `advance(*_)`, called once per item done (a group's items count for it)."""
        unit = Tally(description, total)
        with self.lock:
            self.units.append(unit)
            outer, self.active = self.active, unit
            self.display.add(unit, 1)
        log = _RunLog(description, total)

        def advance(*_: Any) -> None:
            with self.lock:
                unit.done += 1
                self.display.advanced(unit)
                group = _GROUP.get()
                if group is not None and group is not unit:
                    group.done += 1
                    self.display.advanced(group)
                self._tenth(unit)
            log.advance()

        try:
            yield advance
        finally:
            with self.lock:
                unit.ended = time.monotonic()
                for group in unit.groups.values():
                    self.display.remove(group)
                self.display.remove(unit)
                self.active = outer
                self.say(self._prefixed(unit.line()))
            log.end()

    def open_groups(self, sizes: dict[str, int]) -> dict[str, Tally]:
        """Groups of the open loop (of the stage outside one), `label → items`; returns their tallies."""
        with self.lock:
            owner = self.active or self.stage
            out = {}
            for label in sorted(sizes, key=natural_key):  # shown in the tasks' natural order: 2-2 before 2-10
                size = sizes[label]
                group = owner.groups.get(label)
                if group is None:
                    group = owner.groups[label] = Tally(label, size)
                    self.display.add(group, 2)
                out[label] = group
            return out

    def group_done(self, group: Tally) -> None:
        """One item of `group` done, counted by the group itself (a loop whose items are not advanced inside their
        group's context)."""
        with self.lock:
            group.done += 1
            self.display.advanced(group)

    # ------------------------------------------------------------------ lines
    def _prefixed(self, line: str) -> str:
        return line if line.startswith(f"{self.stage.label}:") else f"{self.stage.label} · {line}"

    def say(self, line: str) -> None:
        with self.lock:
            self.last_line = time.monotonic()
            self.display.say(line)

    def _tenth(self, unit: Tally) -> None:
        """In plain output, a line when `unit` passes a tenth of its total (at most one per TENTH_GAP_S)."""
        if not isinstance(self.display, _Plain) or not unit.total:
            return
        tenth = unit.done * 10 // unit.total
        quiet = time.monotonic() - self.last_line
        if tenth > unit.tenth and unit.done < unit.total and quiet >= min(TENTH_GAP_S, interval_s()):
            unit.tenth = tenth
            self.say(self._prefixed(unit.line()))

    def heartbeat(self) -> str:
        """The plain line for now: the open loop's, else the stage's (running, calls so far)."""
        with self.lock:
            if self.active is not None:
                return self._prefixed(self.active.line())
            stage = self.stage
            calls = f", {stage.calls_text()}" if stage.calls else ""
            return f"{stage.label}: running, {clock(stage.elapsed())}{calls}"

    def summary(self, ok: bool = True) -> str:
        """The stage's closing line: `lawbench_predict@oracle-zero_shot: done in 3.2 s; 40/40 items, 40 calls
        (38 cached, 2 failed), 13,200 tokens (1,100 new)`."""
        stage = self.stage
        seconds = stage.elapsed()
        head = f"{stage.label}: {'done in' if ok else 'failed after'} {seconds:.1f} s"
        parts = []
        if self.units:
            total = sum(u.total or 0 for u in self.units)
            done = sum(u.done for u in self.units)
            parts.append(f"{done:,}/{total:,} items" if total else f"{done:,} items")
        if stage.calls:
            parts.append(
                f"{stage.calls:,} calls ({stage.counts_text()}), {stage.tokens:,} tokens ({stage.new_tokens:,} new)"
            )
        return head + (f"; {', '.join(parts)}" if parts else "")

    def close(self) -> None:
        with self.lock:
            self.stage.ended = time.monotonic()
        self.display.stop()


# ------------------------------------------------------------------ the two displays
def _console() -> Console:
    return Console(stderr=True)


def _display(meter: Meter) -> _Display:
    """Live on a terminal, plain lines otherwise."""
    console = _console()
    if console.is_terminal and not console.is_dumb_terminal:
        return _Live(meter, console)
    return _Plain(meter)


class _Plain:
    """Plain lines on stderr: what `Meter` says, and a heartbeat line after `interval_s()` of silence."""

    def __init__(self, meter: Meter):
        self.meter, self.stopped = meter, threading.Event()
        self.thread = threading.Thread(target=self._beat, name="progress-heartbeat", daemon=True)
        self.thread.start()

    def _beat(self) -> None:
        every = max(interval_s(), HEARTBEAT_MIN_S)
        while not self.stopped.wait(0.25):
            if time.monotonic() - self.meter.last_line >= every:
                self.meter.say(self.meter.heartbeat())

    def add(self, tally: Tally, indent: int) -> None:
        return None

    def advanced(self, tally: Tally) -> None:
        return None

    def remove(self, tally: Tally) -> None:
        return None

    def say(self, line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=5)


class _ItemsColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        if task.total is None:
            return Text("")
        return Text(f"{int(task.completed):,}/{int(task.total):,}", style="progress.download")


class _CallsColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        tally: Tally | None = task.fields.get("tally")
        if tally is None or not tally.calls:
            return Text("")
        out = Text(f"{tally.calls:,} calls", style="cyan")
        out.append(f" ({tally.cached:,} cached, ")
        out.append(f"{tally.failed:,} failed", style="bold red" if tally.failed else "")
        if tally.over_context:
            out.append(f", {tally.over_context:,} over the context", style="yellow")
        out.append(f") {tally.tokens:,} tokens")
        return out


class _EtaColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        if task.total is None or task.finished:
            return Text("")
        left = task.time_remaining
        return Text(f"ETA {clock(left)}" if left is not None else "ETA ?", style="progress.remaining")


class _Live:
    """A rich display on the terminal: the stage, its open loop and the loop's groups, refreshed twice a second."""

    def __init__(self, meter: Meter, console: Console):
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(bar_width=24),
            _ItemsColumn(),
            _CallsColumn(),
            TimeElapsedColumn(),
            _EtaColumn(),
            console=console,
            transient=True,
            refresh_per_second=2,
        )
        self.rows: dict[int, TaskID] = {}
        self.progress.start()
        self.add(meter.stage, 0)

    def add(self, tally: Tally, indent: int) -> None:
        label = "  " * indent + escape(tally.label)
        description = f"[bold]{label}[/]" if indent <= 1 else label
        self.rows[id(tally)] = self.progress.add_task(description, total=tally.total, tally=tally)

    def advanced(self, tally: Tally) -> None:
        row = self.rows.get(id(tally))
        if row is not None:
            self.progress.update(row, completed=tally.done)

    def remove(self, tally: Tally) -> None:
        row = self.rows.pop(id(tally), None)
        if row is not None:
            self.progress.remove_task(row)

    def say(self, line: str) -> None:
        self.progress.console.print(line, markup=False, highlight=False, soft_wrap=True)

    def stop(self) -> None:
        self.progress.stop()


# ------------------------------------------------------------------ the stage and its loops
_current: Meter | None = None


def current() -> Meter | None:
    """The meter of the stage that runs in this process, if any."""
    return _current


@contextmanager
def stage(label: str) -> Iterator[Meter]:
    """Show the progress of a stage (named `label`) while the block runs; the meter's `summary` is its closing line."""
    global _current
    outer, meter = _current, Meter(label)
    _current = meter
    try:
        yield meter
    finally:
        _current = outer
        meter.close()


@contextmanager
def _meter(description: str) -> Iterator[Meter]:
    """The running stage's meter, or one for this loop alone (a loop run outside a stage: a command, a test)."""
    if _current is not None:
        yield _current
    else:
        with stage(description) as meter:
            yield meter


@contextmanager
def counter(description: str, total: int) -> Iterator[Callable[..., None]]:
    """A loop of `total` items advanced by calling the yielded function (e.g. once per model reply)."""
    with _meter(description) as meter, meter.loop(description, total) as advance:
        yield advance


def track(items: Iterable[T], description: str, total: int | None = None) -> Iterator[T]:
    """Iterate over `items` as a loop of the stage."""
    total = total if total is not None else _len(items)
    with _meter(description) as meter, meter.loop(description, total) as advance:
        for item in items:
            yield item
            advance()


def open_groups(sizes: dict[str, int]) -> dict[str, Tally]:
    """The groups of the running stage's open loop (nothing is shown outside a stage: the tallies are loose)."""
    meter = _current
    if meter is None:
        return {label: Tally(label, n) for label, n in sizes.items()}
    return meter.open_groups(sizes)


def in_group(group: Tally) -> contextvars.Context:
    """A copy of the current context in which `group` is the group at work (for `asyncio.create_task(context=…)`)."""
    context = contextvars.copy_context()
    context.run(_GROUP.set, group)
    return context


def group_done(group: Tally) -> None:
    """One item of `group` done (flows/kit/monitor.py: follow_groups)."""
    meter = _current
    if meter is None:
        group.done += 1
    else:
        meter.group_done(group)


def observe_calls(record: UsageRecord) -> None:
    """A door's observer: the call counts for the running stage (nothing outside one); its group has begun."""
    began(record.metadata)
    meter = _current
    if meter is not None:
        meter.call(record)


_MEMBERS: contextvars.ContextVar[Mapping[str, Tally] | None] = contextvars.ContextVar(
    "jurisflow_progress_members", default=None
)


def in_members(members: Mapping[str, Tally]) -> contextvars.Context:
    """A copy of the current context in which a call's group is found from its metadata's `instance_id` in
    `members` (work that runs every group at once: flows/kit/monitor.py's follow_groups)."""
    context = contextvars.copy_context()
    context.run(_MEMBERS.set, members)
    return context


def began(metadata: Mapping[str, Any] | None = None) -> None:
    """A door's starter: a call started (from the cache, or holding its slot); the group it belongs to (the group at
    work, else its instance's in `in_members`) has begun."""
    group = _GROUP.get()
    if group is None:
        members = _MEMBERS.get()
        if members is not None and metadata:
            group = members.get(str(metadata.get("instance_id")))
    if group is not None:
        group.begin()


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


def _len(items: Iterable) -> int | None:
    return len(items) if isinstance(items, Sized) else None

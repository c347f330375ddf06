"""The commands a run starts (`dvc repro`, and through it the stages) stop when the run is stopped.

A terminal's Ctrl-C reaches every process of its foreground group, so `dvc` and its stage stop with `eval`. A
SIGTERM (`kill`, a process manager, a CI timeout) reaches only the process it names, and Python's default is to die
at once: no `finally` runs, and `dvc`, its stage and the run's own Prefect server live on, the stage still sending
model calls. Here each command runs in a process group of its own (`start`), and within `interruptible()` a SIGINT
or SIGTERM to the run is passed on to every live command's group as a Ctrl-C (SIGINT: a stage saves its journal and
exits, and a rerun resumes it), then raised in the run as KeyboardInterrupt, so that its `finally` blocks stop what
it started. `finish` waits for a command; interrupted, it gives the group `GRACE_S` to end, then SIGTERM, then
SIGKILL.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

GRACE_S = 30.0  # after the Ctrl-C: time for a stage to save its journal and for dvc to record the failure
_LIVE: set[subprocess.Popen] = set()
_INTERRUPTED: set[subprocess.Popen] = set()  # given their Ctrl-C already: a second one would cut a stage's clean-up
_LOCK = threading.Lock()


def _signal_group(proc: subprocess.Popen, signum: int) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signum)


def _interrupt(proc: subprocess.Popen) -> None:
    """Give the command's group its Ctrl-C, once."""
    with _LOCK:
        if proc in _INTERRUPTED:
            return
        _INTERRUPTED.add(proc)
    _signal_group(proc, signal.SIGINT)


def _interrupt_all() -> None:
    with _LOCK:
        live = list(_LIVE)
    for proc in live:
        _interrupt(proc)


@contextmanager
def interruptible() -> Iterator[None]:
    """Within the block (in the main thread; elsewhere it does nothing), SIGINT and SIGTERM interrupt every live
    command's group (SIGINT) and raise KeyboardInterrupt here."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_signal(signum: int, frame: object) -> None:
        _interrupt_all()
        raise KeyboardInterrupt

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def start(args: list[str], **popen: Any) -> subprocess.Popen:
    """`subprocess.Popen(args, **popen)` in a new process group, known to `interruptible` until `finish`."""
    proc = subprocess.Popen(args, start_new_session=True, **popen)
    with _LOCK:
        _LIVE.add(proc)
    return proc


def _group_ends(proc: subprocess.Popen, timeout_s: float) -> bool:
    """Whether every process of the command's group has ended within `timeout_s` (the command itself reaped)."""
    deadline = time.monotonic() + timeout_s
    while True:
        proc.poll()
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.2)


def stop(proc: subprocess.Popen, grace_s: float = GRACE_S) -> None:
    """End the command's whole group: Ctrl-C, then SIGTERM after `grace_s`, then SIGKILL after 10 s more (a stage
    still saving its journal when `dvc` has ended is waited for too)."""
    _interrupt(proc)
    if _group_ends(proc, grace_s):
        return
    for signum in (signal.SIGTERM, signal.SIGKILL):
        _signal_group(proc, signum)
        if _group_ends(proc, 10.0):
            return


def finish(proc: subprocess.Popen, grace_s: float = GRACE_S) -> int:
    """The command's exit code; interrupted while waiting, `stop` it and re-raise."""
    try:
        return proc.wait()
    except BaseException:
        stop(proc, grace_s)
        raise
    finally:
        with _LOCK:
            _LIVE.discard(proc)
            _INTERRUPTED.discard(proc)


def run(args: list[str], grace_s: float = GRACE_S, **popen: Any) -> int:
    """`start` then `finish`: the exit code of a command that stops with the run."""
    return finish(start(args, **popen), grace_s)

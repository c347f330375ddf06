"""The locks that keep two commands from clobbering each other's work in one project (filelock: an OS lock on a file,
released by the kernel when its holder dies, so none goes stale).

- `params_writing(params.yaml)`: every read-modify-write of params.yaml (`jurisflow eval`'s registration, `jurisflow
  params sync`) holds `.params.yaml.lock` beside it, so that two writers never lose each other's entry. A write takes
  milliseconds: a writer waits up to `PARAMS_WAIT_S` for another, then refuses in one line.
- `one_eval(params.yaml, agent)`: a `jurisflow eval` holds `.jurisflow-eval.lock` beside params.yaml from its
  registration to the end of its `dvc repro`: a second eval waits for the first (saying so, and for whom) before it
  writes anything. Two evals at once would change params.yaml under each other's `dvc repro` (the reports list every
  agent) and their `dvc repro` processes would block each other on the stages they share.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

PARAMS_WAIT_S = 60.0


class LockBusyError(RuntimeError):
    """Another process held a lock longer than this one would wait; the message is one line saying what to do."""


def params_lock_file(params_file: Path) -> Path:
    return params_file.with_name(f".{params_file.name}.lock")


def eval_lock_file(params_file: Path) -> Path:
    return params_file.with_name(".jurisflow-eval.lock")


@contextmanager
def params_writing(params_file: Path, wait_s: float = PARAMS_WAIT_S) -> Iterator[None]:
    """Hold params.yaml's write lock for one read-modify-write (waiting up to `wait_s` for another writer)."""
    path = params_lock_file(params_file)
    lock = FileLock(path, timeout=wait_s)
    try:
        lock.acquire()
    except Timeout:
        raise LockBusyError(
            f"{params_file}: another command has been writing it for {wait_s:g} s (it holds {path}); nothing was "
            "written: try again when it is done"
        ) from None
    try:
        yield
    finally:
        lock.release()


@contextmanager
def one_eval(params_file: Path, agent: str, say: Callable[[str], None]) -> Iterator[None]:
    """Hold the project's eval lock for the block; when another eval holds it, `say` who and wait for it to end."""
    path = eval_lock_file(params_file)
    me = f"pid {os.getpid()}, agent {agent}, since {time.strftime('%H:%M:%S')}"

    def sign(fd: int) -> None:  # the lock file names its holder, for the next eval's message
        os.write(fd, me.encode())

    lock = FileLock(path, on_acquired=sign)
    try:
        lock.acquire(blocking=False)
    except Timeout:
        holder = _holder(path)
        say(
            f"waiting for the other `jurisflow eval` in this project ({holder}) to end: evals run one at a time "
            "(Ctrl-C stops this one; nothing is written before it starts; `jurisflow agents run` runs several agents "
            "at once)"
        )
        lock.acquire()
    try:
        yield
    finally:
        lock.release()


def _holder(path: Path) -> str:
    """What the holder of an eval lock wrote in it (its pid, agent and start), or that it is not known."""
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        text = ""
    return text or "holder not known"

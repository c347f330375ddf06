"""One process per DVC stage at a time: the stage process itself holds a lock for its lifetime.

DVC's repository lock belongs to the `dvc` process. When that process dies (`kill -9`, a closed terminal), the stage
it started goes on as an orphan, and the next `dvc repro` would run the same stage beside it: two processes writing
one stage's outputs and sending its calls twice. So every stage DVC runs (`DVC_ROOT` and `DVC_STAGE` set, also when
forked by the stage server) takes an exclusive `flock` on `.dvc/tmp/stages/<stage>.lock` in the project before it
starts, and holds it until its process ends; the kernel releases it however the process ends, so a lock is never
stale. A stage that finds its lock held refuses at once, in one line naming the pid of the one that runs.
A stage run by hand (`jurisflow <stage>`, outside DVC) takes no lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
from collections.abc import Iterator
from pathlib import Path

FOLDER = Path(".dvc") / "tmp" / "stages"


class StageRunning(Exception):
    """The same stage of the same project already runs in another process."""


def lock_path(root: Path, stage: str) -> Path:
    """The lock file of DVC stage `stage` (`name@item` for a stage of a matrix) in the project at `root`."""
    return root / FOLDER / (re.sub(r"[^\w@.+=-]", "_", stage) + ".lock")


@contextlib.contextmanager
def stage_lock(environ: dict[str, str] | None = None) -> Iterator[Path | None]:
    """Hold the lock of the DVC stage this process runs (none outside DVC) until the block ends; StageRunning
    when another process holds it. Yields the lock file (None outside DVC)."""
    env = os.environ if environ is None else environ
    root, stage = env.get("DVC_ROOT"), env.get("DVC_STAGE")
    if not root or not stage:
        yield None
        return
    path = lock_path(Path(root), stage)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)  # not inherited by the programs a stage starts
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "unknown"
            raise StageRunning(
                f"stage {stage} is already running in this project (pid {holder}, e.g. left running by a killed "
                f"`dvc`): wait for it to end or stop it, then rerun"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield path
    finally:
        os.close(fd)  # releases the lock (a process that dies releases it too)

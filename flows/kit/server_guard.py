"""The temporary Prefect server of a stage dies with the stage, even when the stage is killed (SIGKILL included).

Prefect starts its temporary ("ephemeral") API server as a child process and stops it at exit, which a killed
stage never reaches. `install()` makes Prefect start that server through this module instead:
`python -m flows.kit.server_guard PARENT_PID -m uvicorn ...` watches its parent and, once the parent is gone
(reparented), stops the server it runs (SIGTERM to itself, uvicorn's graceful shutdown, then a hard exit).
"""

from __future__ import annotations

import os
import runpy
import signal
import subprocess
import sys
import threading
import time
from typing import Any

POLL_S = 0.5
GRACE_S = 5.0


class _GuardedSubprocess:
    """The `subprocess` module as Prefect's server module sees it: Popen runs its command under the guard."""

    def __getattr__(self, name: str) -> Any:
        return getattr(subprocess, name)

    @staticmethod
    def Popen(args: list[str], **kwargs: Any) -> subprocess.Popen:
        return subprocess.Popen(guarded(list(args), os.getpid()), **kwargs)


def guarded(args: list[str], parent: int) -> list[str]:
    """`python -m ...` rewritten to run under the guard of `parent`; other commands are left as they are."""
    if len(args) >= 3 and args[0] == sys.executable and args[1] == "-m":
        return [sys.executable, "-m", __name__, str(parent), *args[1:]]
    return args


def install() -> None:
    """Route Prefect's temporary server through the guard (idempotent). With an API URL set (`make run`, the tests'
    runs) Prefect starts no temporary server: nothing to route, and the stage is spared importing Prefect's server
    module (its FastAPI app, some 2.5 s of CPU)."""
    from prefect.settings import PREFECT_API_URL

    if PREFECT_API_URL.value():
        return
    from prefect.server.api import server

    if not isinstance(server.subprocess, _GuardedSubprocess):
        # prefect's server module reads `subprocess.Popen` etc.: the guard stands in for the module it imported
        server.subprocess = _GuardedSubprocess()  # type: ignore[assignment]


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(POLL_S)
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(GRACE_S)
    os._exit(1)


def main(argv: list[str]) -> None:
    """`PARENT_PID -m MODULE ARGS...`: run MODULE as __main__ while a thread watches PARENT_PID."""
    parent, flag, module, *rest = argv
    if flag != "-m":
        raise SystemExit(f"usage: python -m {__name__} PARENT_PID -m MODULE [ARGS...]")
    threading.Thread(target=_watch, args=(int(parent),), daemon=True, name="parent-watch").start()
    sys.argv = [module, *rest]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])

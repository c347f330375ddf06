"""`make run`: `dvc repro` with every stage reporting to one Prefect server.

Without PREFECT_API_URL each stage process would start (and stop) a temporary Prefect server of its own, about
10 s per stage on a 2-core machine. This starts one real server for the whole run (its state in PREFECT_HOME,
so `prefect server start` shows the runs afterwards), runs `dvc repro` with PREFECT_API_URL pointing at it, and
stops it. With PREFECT_API_URL already set (a server you watch), that server is used and nothing is started.

    python -m flows.pipeline [dvc repro arguments ...]
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx

from flows.dvc_cli import command as dvc_command


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The server's background services a server started for one run has no use for: it runs no schedules or automations,
# and its runs end with it (the task-run recorder and event persister, which fill the UI, stay on). Off, the server
# starts on ~30 % less CPU and idles on half; a value set outside wins.
IDLE_SERVICES = (
    "CANCELLATION_CLEANUP",
    "CLEANUP_RECONCILER",
    "FOREMAN",
    "LATE_RUNS",
    "PAUSE_EXPIRATIONS",
    "REPOSSESSOR",
    "SCHEDULER",
    "TRIGGERS",
)


@contextmanager
def prefect_server(home: Path | None = None, timeout_s: float = 180.0) -> Iterator[str]:
    """A real Prefect server on a free loopback port (state in `home`, else PREFECT_HOME), without IDLE_SERVICES;
    yields its API URL."""
    port = _free_port()
    services = {f"PREFECT_SERVER_SERVICES_{name}_ENABLED": "false" for name in IDLE_SERVICES}
    env = {**services, **os.environ, "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    env.pop("PREFECT_API_URL", None)
    if home is not None:
        env["PREFECT_HOME"] = str(home)
    prefect = Path(sys.executable).parent / "prefect"
    proc = subprocess.Popen(
        [str(prefect), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/api"
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None:
                raise RuntimeError(f"the Prefect server exited during start-up (code {proc.returncode})")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Prefect server did not answer {url}/health within {timeout_s:.0f} s")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextmanager
def served(env: dict[str, str], announce: bool = False) -> Iterator[dict[str, str]]:
    """`env` for `dvc` commands whose stages report to one Prefect server (the one PREFECT_API_URL in `env` names,
    else one started here for the block; `announce` prints its address)."""
    with ExitStack() as stack:
        if not env.get("PREFECT_API_URL"):
            url = stack.enter_context(prefect_server())
            if announce:
                print(f"Prefect server for this run: {url.removesuffix('/api')}", file=sys.stderr)
            env = {**env, "PREFECT_API_URL": url}
        yield env


def repro(args: list[str], env: dict[str, str], announce: bool = False) -> int:
    """`dvc repro ARGS` with `env`, its stages served as `served` says."""
    with served(env, announce) as env_served:
        return subprocess.run(dvc_command("repro", *args), env=env_served).returncode


def main(argv: list[str]) -> int:
    from steps.llm.ledger import session_env

    # one run session: `llm.budget_usd` caps what the stages of this run spend together
    return repro(argv, session_env(), announce=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

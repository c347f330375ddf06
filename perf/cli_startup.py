"""CPU seconds of the read-only `jurisflow` commands (user + system of the command and its children).

CPU time, not wall time: on a shared machine the wall clock mostly measures the other processes. Each command
runs `--repeat` times in the given project (default: this one), and the median is printed. `show` needs a J1
run under data/j1/runs/ (after `dvc repro`); it is left out when there is none.

    python perf/cli_startup.py [--root DIR] [--repeat 3]

Point `--root` at another checkout (with its own .venv) to compare two versions of the code.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
from pathlib import Path


def cpu_seconds(cmd: list[str], cwd: Path) -> tuple[float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, env={**os.environ, "COLUMNS": "200"})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.returncode


def commands(root: Path) -> dict[str, list[str]]:
    jurisflow = str(root / ".venv" / "bin" / "jurisflow")
    out = {
        "--help": [jurisflow, "--help"],
        "serve vllm --help": [jurisflow, "serve", "vllm", "--help"],
        "params check": [jurisflow, "params", "check"],
        "serve check (no server)": [jurisflow, "serve", "check", "http://127.0.0.1:9/v1"],
        "models check (scripted)": [jurisflow, "models", "check"],
        "results": [jurisflow, "results"],
    }
    runs = sorted((root / "data" / "j1" / "runs").glob("*/dialogues.parquet"))
    if runs:
        import pandas as pd

        instance = str(pd.read_parquet(runs[0], columns=["instance_id"]).instance_id.iloc[0])
        out["show"] = [jurisflow, "show", runs[0].parent.name, instance]
    return out


def main() -> None:
    from record import add_flag, record

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--repeat", type=int, default=3)
    add_flag(parser)
    args = parser.parse_args()
    print(f"{'command':<26} {'CPU s (median)':>14}  exit")
    figures = []
    for name, cmd in commands(args.root.resolve()).items():
        runs = [cpu_seconds(cmd, args.root) for _ in range(args.repeat)]
        print(f"{name:<26} {statistics.median(t for t, _ in runs):>14.2f}  {runs[-1][1]}")
        figures.append((f"`jurisflow {name}`", f"{statistics.median(t for t, _ in runs):.2f} s"))
    if args.record:
        record("Read-only commands (CPU seconds)", figures)


if __name__ == "__main__":
    main()

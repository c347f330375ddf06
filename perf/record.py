"""Records of measured figures: a perf script run with `--record` appends one JSON line per figure to
perf/results/<script>.jsonl, and `perf/write_docs.py` renders docs/performance.md from those files.

A record says what was measured and how to measure it again: topic, figure, value (text, with its unit), the
command, the date, the commit and the machine. Records are appended, never rewritten: the page shows the newest
value of each figure, the files keep every earlier one.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "perf" / "results"
FIELDS = ("topic", "figure", "value", "command", "date", "commit", "machine")
START = Path.cwd()  # where the script was started, before it may change its working directory


def add_flag(parser: argparse.ArgumentParser) -> None:
    """The `--record` option every perf script takes."""
    parser.add_argument(
        "--record", action="store_true", help="append the figures to perf/results/<script>.jsonl (docs/performance.md)"
    )


def machine() -> str:
    """This machine in a few words: cores, memory, and the load it was under (figures move with it)."""
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} cores, {memory:.0f} GiB, load average {os.getloadavg()[0]:.1f}"


def commit() -> str:
    """The commit measured, `-dirty` when tracked files differ from it."""
    done = subprocess.run(
        ["git", "describe", "--always", "--dirty", "--abbrev=7"], cwd=ROOT, capture_output=True, text=True
    )
    return done.stdout.strip() or "unknown"


def command(argv: list[str] | None = None) -> str:
    """The command that measured, as a reader would type it from the project root (without `--record`)."""
    argv = sys.argv if argv is None else argv
    script = (START / argv[0]).resolve()
    shown = script.relative_to(ROOT) if script.is_relative_to(ROOT) else script
    return shlex.join([".venv/bin/python", str(shown), *(a for a in argv[1:] if a != "--record")])


def record(topic: str, figures: Iterable[tuple[str, str]], *, script: str | None = None) -> Path:
    """Append one record per (figure, value) to perf/results/<script>.jsonl; return the file."""
    name = script or Path(sys.argv[0]).stem
    shared = {"command": command(), "date": datetime.date.today().isoformat(), "commit": commit(), "machine": machine()}
    path = RESULTS / f"{name}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        for figure, value in figures:
            row = {"topic": topic, "figure": figure, "value": value, **shared}
            out.write(json.dumps({k: row[k] for k in FIELDS}, ensure_ascii=False) + "\n")
    print(f"recorded in {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return path

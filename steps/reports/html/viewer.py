"""Read every dialogue of one agent's run of a dialogue benchmark from data/ as viewer records (for the HTML
report's transcript viewer and `jurisflow show`). Light to import: no Prefect, no model door.

A benchmark with a reader of its own (its registration's `dialogue_reader`: its judges' scores beside the turns)
is read by it; any other dialogue benchmark from its run tables alone (`generic`).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from steps.benchmarks import benchmark
from steps.paths import DIALOGUES, TURNS
from steps.registry import resolve
from steps.reports.html import dialogues


def read_table(path: Path) -> pd.DataFrame:
    """A run's table as written by its stage (validated there; read plainly here to stay light)."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: table not found; run the stage that writes it (see dvc.yaml)")
    return pd.read_parquet(path)


def optional(path: Path) -> pd.DataFrame | None:
    """A run's table, or None when the stage that writes it has not run."""
    return read_table(path) if path.is_file() else None


def generic(where: Path, paper_ids: bool = False) -> list[dialogues.Record]:
    return dialogues.generic(read_table(where / TURNS), read_table(where / DIALOGUES))


def marker(bench: str) -> str:
    """The table whose presence says that a run of `bench` has dialogues to show."""
    return benchmark(bench).dialogue_marker


def agent_dialogues(bench: str, where: Path, paper_ids: bool = False) -> list[dialogues.Record]:
    """The dialogue records of one agent's run of a benchmark (data/<benchmark>/runs/<agent>/); [] when it has none.
    `paper_ids`: records labelled with the paper's ids where the benchmark has them (UCL-Bench's task ids; without
    them a UCL record's env is the task's name)."""
    registered = benchmark(bench)
    read = resolve(registered.dialogue_reader) if registered.dialogue_reader else generic
    return read(where, paper_ids) if (where / registered.dialogue_marker).is_file() else []

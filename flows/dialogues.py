"""Read every dialogue of one agent's run of a dialogue benchmark from data/ as viewer records (for the HTML
report's transcript viewer and `jurisflow show`). Light to import: no Prefect, no model door.

J1, MILE, UCL-Bench and PLawBench have readers of their own (their judges' scores beside the turns); any other
dialogue benchmark (a registration with `dialogues=True`) is read from its run tables alone (`dialogues.generic`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from flows.kit.paths import DIALOGUES, TURNS
from steps.reports.html import dialogues
from steps.runs import read_run_if_any

Reader = Callable[[Path, dict[str, str]], list[dialogues.Record]]


def read_table(path: Path) -> pd.DataFrame:
    """A run's table as written by its stage (validated there; read plainly here to stay light)."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: table not found; run the stage that writes it (see dvc.yaml)")
    return pd.read_parquet(path)


def _optional(path: Path) -> pd.DataFrame | None:
    return read_table(path) if path.is_file() else None


def _j1(where: Path, task_ids: dict[str, str]) -> list[dialogues.Record]:
    deliverables = read_table(where / DIALOGUES)
    causes = _optional(where / "failure_causes.parquet")  # written by the judge stage
    if causes is not None:
        deliverables = deliverables.merge(causes[["instance_id", "failure_causes"]], on="instance_id", how="left")
    return dialogues.j1(read_table(where / TURNS), deliverables, _optional(where / "scores.parquet"))


def _mile(where: Path, task_ids: dict[str, str]) -> list[dialogues.Record]:
    return dialogues.mile(read_table(where / TURNS), read_table(where / DIALOGUES), _optional(where / "scores.parquet"))


def _ucl(where: Path, task_ids: dict[str, str]) -> list[dialogues.Record]:
    return dialogues.ucl(
        read_table(where / TURNS),
        read_table(where / DIALOGUES),
        _optional(where / "verdicts.parquet"),
        _optional(where / "hint_scores.parquet"),
        task_ids,
    )


def _plawbench(where: Path, task_ids: dict[str, str]) -> list[dialogues.Record]:
    record = read_run_if_any(where)
    run = record.spec if record is not None else {}
    turns = _optional(where / TURNS)
    return dialogues.plawbench(
        read_table(where / "responses.parquet"),
        turns if turns is not None else pd.DataFrame(columns=["instance_id", "turn_index"]),
        _optional(where / "judgements.parquet"),
        _optional(where / "item_scores.parquet"),
        agent_model=run.get("model", ""),
        environment_model=(run.get("multiturn") or {}).get("environment", ""),
    )


def _generic(where: Path, task_ids: dict[str, str]) -> list[dialogues.Record]:
    return dialogues.generic(read_table(where / TURNS), read_table(where / DIALOGUES))


# benchmark -> (the table that marks a run with dialogues, its reader)
READERS: dict[str, tuple[str, Reader]] = {
    "j1": (DIALOGUES, _j1),
    "mile": (DIALOGUES, _mile),
    "ucl": (DIALOGUES, _ucl),
    "plawbench": ("responses.parquet", _plawbench),
}


def marker(bench: str) -> str:
    """The table whose presence says that a run of `bench` has dialogues to show."""
    return READERS[bench][0] if bench in READERS else DIALOGUES


def agent_dialogues(bench: str, where: Path, task_ids: dict[str, str] | None = None) -> list[dialogues.Record]:
    """The dialogue records of one agent's run of a benchmark (data/<benchmark>/runs/<agent>/); [] when it has none.
    `task_ids` maps UCL task names to the paper's ids (steps.ucl.tasks; without it a UCL record's env is the name)."""
    read = READERS[bench][1] if bench in READERS else _generic
    return read(where, task_ids or {}) if (where / marker(bench)).is_file() else []

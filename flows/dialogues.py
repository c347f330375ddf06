"""Read every dialogue of one agent's run of a dialogue benchmark from data/ as viewer records (for the HTML
report's transcript viewer and `jurisflow show`). Light to import: no Prefect, no model door."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from flows.kit.paths import DIALOGUES
from flows.kit.runs import read_run_if_any
from steps.reports.html import dialogues


def read_table(path: Path) -> pd.DataFrame:
    """A run's table as written by its stage (validated there; read plainly here to stay light)."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: table not found; run the stage that writes it (see dvc.yaml)")
    return pd.read_parquet(path)


def _optional(path: Path) -> pd.DataFrame | None:
    return read_table(path) if path.is_file() else None


def agent_dialogues(bench: str, where: Path, task_ids: dict[str, str] | None = None) -> list[dialogues.Record]:
    """The dialogue records of one agent's run of a benchmark (data/<benchmark>/runs/<agent>/); [] when it has none.
    `task_ids` maps UCL task names to the paper's ids (steps.ucl.tasks; without it a UCL record's env is the name)."""
    if bench == "j1" and (where / DIALOGUES).is_file():
        deliverables = read_table(where / DIALOGUES)
        causes = _optional(where / "failure_causes.parquet")  # written by the judge stage
        if causes is not None:
            deliverables = deliverables.merge(causes[["instance_id", "failure_causes"]], on="instance_id", how="left")
        return dialogues.j1(read_table(where / "turns.parquet"), deliverables, _optional(where / "scores.parquet"))
    if bench == "mile" and (where / DIALOGUES).is_file():
        return dialogues.mile(
            read_table(where / "turns.parquet"),
            read_table(where / DIALOGUES),
            _optional(where / "scores.parquet"),
        )
    if bench == "ucl" and (where / DIALOGUES).is_file():
        return dialogues.ucl(
            read_table(where / "turns.parquet"),
            read_table(where / DIALOGUES),
            _optional(where / "verdicts.parquet"),
            _optional(where / "hint_scores.parquet"),
            task_ids or {},
        )
    if bench == "plawbench" and (where / "responses.parquet").is_file():
        record = read_run_if_any(where)
        run = record.spec if record is not None else {}
        turns = _optional(where / "turns.parquet")
        return dialogues.plawbench(
            read_table(where / "responses.parquet"),
            turns if turns is not None else pd.DataFrame(columns=["instance_id", "turn_index"]),
            _optional(where / "judgements.parquet"),
            _optional(where / "item_scores.parquet"),
            agent_model=run.get("model", ""),
            environment_model=(run.get("multiturn") or {}).get("environment", ""),
        )
    return []

"""Reading a LawBench-style prediction folder and writing LawBench's `results.csv` table (spec §3.2, §4.1)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from steps.lawbench.metrics.tasks import SETTINGS, TASK_IDS
from steps.lawbench.sources import prediction_rows
from steps.sources.readers import read_json

RESULTS_COLUMNS = ["task", "model_name", "score", "abstention_rate"]
PREDICTION_COLUMNS = ["setting", "model", "task", "idx", "prompt", "prompt_role", "prediction", "reference"]


def _read_task_file(path: Path, setting: str, model: str, task: str) -> list[dict]:
    label = f"{model}/{path.name} ({path})"
    return prediction_rows(read_json(path, label), label=label, setting=setting, model=model, task=task)


def read_prediction_folder(folder: Path, setting: str | None = None) -> tuple[pd.DataFrame, list[str]]:
    """Predictions under `folder/<model>/<task>.json` as a long table, plus the files that were skipped.

    As LawBench's driver does, hidden entries and top-level files (e.g. results.csv) are ignored and the task
    id is the file name up to its first `.`; files with an unknown task id are skipped and listed as
    `model/file`. `setting` defaults to the folder's name.
    """
    setting = setting or folder.name
    rows: list[dict] = []
    skipped: list[str] = []
    for model_dir in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for path in sorted(p for p in model_dir.iterdir() if p.is_file() and not p.name.startswith(".")):
            task = path.name.split(".")[0]
            if task not in TASK_IDS:
                skipped.append(f"{model_dir.name}/{path.name}")
                continue
            rows.extend(_read_task_file(path, setting, model_dir.name, task))
    return pd.DataFrame(rows, columns=PREDICTION_COLUMNS), skipped


def read_prediction_tree(root: Path) -> tuple[pd.DataFrame, list[str]]:
    """A `predictions/` folder with `zero_shot/`/`one_shot/` sub-folders, or a single setting folder."""
    settings = [root / s for s in SETTINGS if (root / s).is_dir()]
    if not settings:
        return read_prediction_folder(root)
    frames: list[pd.DataFrame] = []
    skipped: list[str] = []
    for folder in settings:
        frame, skipped_here = read_prediction_folder(folder)
        frames.append(frame)
        skipped.extend(f"{folder.name}/{s}" for s in skipped_here)
    return pd.concat(frames, ignore_index=True), skipped


def results_table(scores: pd.DataFrame, setting: str | None = None) -> pd.DataFrame:
    """One setting's scores in LawBench's `results.csv` layout: task, model_name, score, abstention_rate."""
    if setting is not None:
        scores = scores[scores["setting"] == setting]
    elif "setting" in scores and scores["setting"].nunique() > 1:
        raise ValueError(
            "results.csv holds one setting; pass setting= to choose one of " + str(sorted(set(scores["setting"])))
        )
    table = scores.rename(columns={"model": "model_name"})[RESULTS_COLUMNS]
    return table.sort_values(["model_name", "task"], key=lambda c: c.map(_task_order) if c.name == "task" else c)


def _task_order(task: str) -> tuple[int, int]:
    level, number = task.split("-")
    return int(level), int(number)

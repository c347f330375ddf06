"""LawBench: the 20 task scorers, written from the spec, reproducing the published scores.

The task catalogue (`tasks`) is light and imported at once. The scorers load on first use: they bring numba's
alignment kernel, pypinyin, cn2an and jieba (about 3 s of CPU), which only the scoring stages need, while every
stage reaches this package through the LawBench schemas. `folder.py` also reads files through LawBench's loaders
(steps.lawbench.sources), which import the task catalogue; importing it lazily keeps that cycle from biting.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from steps.lawbench.metrics.tasks import LEVELS, SETTINGS, TASK_IDS, TASKS, LawBenchTask

if TYPE_CHECKING:
    from steps.lawbench.metrics.batch import score_predictions
    from steps.lawbench.metrics.folder import read_prediction_folder, read_prediction_tree, results_table
    from steps.lawbench.metrics.result import ScoringError, TaskScore
    from steps.lawbench.metrics.scoring import score_task

__all__ = [
    "LEVELS",
    "SETTINGS",
    "TASKS",
    "TASK_IDS",
    "LawBenchTask",
    "ScoringError",
    "TaskScore",
    "read_prediction_folder",
    "read_prediction_tree",
    "results_table",
    "score_predictions",
    "score_task",
]

_LAZY = {
    "score_predictions": "batch",
    "ScoringError": "result",
    "TaskScore": "result",
    "score_task": "scoring",
    "read_prediction_folder": "folder",
    "read_prediction_tree": "folder",
    "results_table": "folder",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

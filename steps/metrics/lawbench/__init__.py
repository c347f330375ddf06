"""LawBench: the 20 task scorers, written from the spec, reproducing the published scores."""

import importlib
from typing import Any

from steps.metrics.lawbench.result import ScoringError, TaskScore
from steps.metrics.lawbench.tasks import LEVELS, SETTINGS, TASK_IDS, TASKS, LawBenchTask

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

# Loaded on first use: the scorers pull in numba and pypinyin (about 2 s), which readers of the task catalogue
# (the schemas, every stage) do not need. folder.py reads files through steps.sources, which itself imports this
# package's task catalogue; importing it lazily also keeps that cycle from biting.
_LAZY = {
    "score_predictions": "batch",
    "score_task": "scoring",
    "read_prediction_folder": "folder",
    "read_prediction_tree": "folder",
    "results_table": "folder",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"steps.metrics.lawbench.{_LAZY[name]}"), name)
    raise AttributeError(name)

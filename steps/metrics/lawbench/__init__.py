"""LawBench: the 20 task scorers, written from the spec, reproducing the published scores."""

from typing import Any

from steps.metrics.lawbench.batch import score_predictions
from steps.metrics.lawbench.result import ScoringError, TaskScore
from steps.metrics.lawbench.scoring import score_task
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

_FOLDER_NAMES = ("read_prediction_folder", "read_prediction_tree", "results_table")


def __getattr__(name: str) -> Any:
    # folder.py reads files through steps.sources, which itself imports this package's task catalogue;
    # importing it lazily keeps that cycle from biting.
    if name in _FOLDER_NAMES:
        from steps.metrics.lawbench import folder

        return getattr(folder, name)
    raise AttributeError(name)

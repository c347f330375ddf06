"""LawBench: the 20 task scorers, written from the spec, reproducing the published scores."""

from steps.metrics.lawbench.tasks import LEVELS, TASK_IDS, TASKS, LawBenchTask

__all__ = ["LEVELS", "TASKS", "TASK_IDS", "LawBenchTask"]

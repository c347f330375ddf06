"""J1-EVAL: every instance of a J1 run scored on its scenario's metrics (rule metrics and LLM judges), and the
paper-style tables built from the scores (spec j1-envs §5, §7).

`build_cases` + `evaluate_run` are the judge stage's steps; `steps.j1eval.report` renders the tables the
aggregate stage's SQL computes.
"""

from steps.j1eval.case import Case, Panel
from steps.j1eval.evaluate import build_cases, evaluate_case, evaluate_run, metrics_of, score_frame
from steps.j1eval.records import ScoreRow

__all__ = [
    "Case",
    "Panel",
    "ScoreRow",
    "build_cases",
    "evaluate_case",
    "evaluate_run",
    "metrics_of",
    "score_frame",
]

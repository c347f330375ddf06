"""LLM judges: pointwise comparison with a reference, the two-pass court procedure judge (J1 III-1), pairwise
in both orders, and rubric items. Each returns a `Judgement`: a value in [0, 1], or a failure kind that is
counted and shown, never scored 0. `import steps.judges.scripted` registers the offline proxy judge.
"""

from steps.judges.courts import ChecklistItem, Court, Stage, court
from steps.judges.pairwise import judge_pairwise, parse_verdict
from steps.judges.pointwise import Comparison, judge_pointwise, judge_pointwise_many
from steps.judges.procedure import ProcedureScore, judge_procedure
from steps.judges.result import JudgeFailure, Judgement
from steps.judges.rubric import RubricItem, judge_rubric

__all__ = [
    "ChecklistItem",
    "Comparison",
    "Court",
    "JudgeFailure",
    "Judgement",
    "ProcedureScore",
    "RubricItem",
    "Stage",
    "court",
    "judge_pairwise",
    "judge_pointwise",
    "judge_pointwise_many",
    "judge_procedure",
    "judge_rubric",
    "parse_verdict",
]

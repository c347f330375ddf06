"""LLM judges shared by the benchmarks: pointwise comparison with a reference, pairwise in both orders, and
rubric items (J1's court procedure judge is J1's own: steps.j1.eval.procedure). Each returns a `Judgement`: a
value in [0, 1], or a failure kind that is counted and shown, never scored 0. `import steps.judges.scripted`
registers the offline proxy judge.
"""

from steps.judges.pairwise import judge_pairwise, parse_verdict
from steps.judges.pointwise import Comparison, judge_pointwise, judge_pointwise_many
from steps.judges.result import JudgeFailure, Judgement
from steps.judges.rubric import RubricItem, judge_rubric

__all__ = [
    "Comparison",
    "JudgeFailure",
    "Judgement",
    "RubricItem",
    "judge_pairwise",
    "judge_pointwise",
    "judge_pointwise_many",
    "judge_rubric",
    "parse_verdict",
]

"""UCL-Bench (Gan, Feng et al.): a simulated user who holds the information and the need consults the agent
for up to three exchanges on 22 tasks; a judge compares each dialogue with a reference model's, in both
orders, using the experts' answer guidance; and, ours, a pointwise score against the same guidance.

`import steps.ucl.scripted` registers the offline user, oracle and proxy judge for scenario UCL.
"""

from steps.ucl.instances import build_instances, limit_items
from steps.ucl.judging import JudgeSettings, RunIds, judge_run
from steps.ucl.scenario import END, MAX_EXCHANGES, UCL
from steps.ucl.simulation import simulate_dialogues, simulate_run
from steps.ucl.version import protocol_version

__all__ = [
    "END",
    "MAX_EXCHANGES",
    "UCL",
    "JudgeSettings",
    "RunIds",
    "build_instances",
    "judge_run",
    "limit_items",
    "protocol_version",
    "simulate_dialogues",
    "simulate_run",
]

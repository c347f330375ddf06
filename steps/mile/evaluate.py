"""Everything to score in one run: rule rows now, judge tasks to ask, failure rows for dialogues that failed.

A dialogue that ended in a failed model call has no complaint to score: each of its metrics gets one row with
failure `dialogue_failed` (counted in the reports, never scored 0). An empty complaint is a complaint: it is
matched and judged like any other and should score at the bottom.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from steps.mile.goal import GOAL_METRICS, judge_tasks, match_rows, references
from steps.mile.instances import build_instance, persona
from steps.mile.interaction import INTERACTION_METRICS, Utterance, consistency_task, interaction_tasks
from steps.mile.judging import JudgeTask, score_row
from steps.mile.params import MileParams
from steps.mile.parties import parse_defendants, parse_plaintiff

ALL_METRICS = (
    [("goal", m) for m in (*GOAL_METRICS, "CLI-norm", "DEF-norm")]
    + [("interaction", m) for m in INTERACTION_METRICS.values()]
    + [("consistency", "CONS")]
)


@dataclass
class Plan:
    rows: list[dict[str, Any]] = field(default_factory=list)  # rule scores and failure rows
    tasks: list[JudgeTask] = field(default_factory=list)


def utterances_by_instance(turns: pd.DataFrame) -> dict[str, list[Utterance]]:
    kept = turns[(turns.kind == "utterance") & turns.failure.isna()].sort_values(["instance_id", "turn_index"])
    out: dict[str, list[Utterance]] = {}
    for row in kept.itertuples():
        out.setdefault(row.instance_id, []).append(Utterance(int(row.paper_turn), row.speaker, row.text))
    return out


def plan_evaluation(mile: pd.DataFrame, dialogues: pd.DataFrame, turns: pd.DataFrame, options: MileParams) -> Plan:
    """Rule rows, judge tasks and failure rows for every dialogue of a run (matched to MILE by instance id)."""
    rows = mile.set_index("instance_id", drop=False)
    missing = sorted(set(dialogues.instance_id) - set(rows.index))
    if missing:
        raise ValueError(f"{len(missing)} dialogue(s) name no MILE instance, e.g. {missing[0]}")
    said = utterances_by_instance(turns)
    plan = Plan()
    for d in dialogues.itertuples():
        row = rows.loc[d.instance_id]
        if d.ended_by == "call_failed" or d.deliverable is None or pd.isna(d.deliverable):
            plan.rows += [
                score_row(d.instance_id, stage, metric, failure="dialogue_failed", error=d.failure or "")
                for stage, metric in ALL_METRICS
            ]
            continue
        truth = build_instance(row).ground_truth
        plaintiff = parse_plaintiff(row.plaintiff, row.plaintiff_type)
        plan.rows += match_rows(d.instance_id, plaintiff, parse_defendants(row.defendant), d.deliverable, options)
        plan.tasks += judge_tasks(d.instance_id, d.deliverable, references(truth, list(row.evidence), options))
        utterances = said.get(d.instance_id, [])
        plan.tasks += interaction_tasks(d.instance_id, utterances, row.less, options.windows)
        consistency = consistency_task(d.instance_id, utterances, persona(row))
        if consistency is not None:
            plan.tasks.append(consistency)
    return plan

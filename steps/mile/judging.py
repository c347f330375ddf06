"""Judge tasks and score rows shared by the goal, interaction and consistency evaluations.

A `JudgeTask` is one judge call: a rendered prompt, the scale its answer must follow, and which answer key
becomes which metric. `run_tasks` asks them concurrently through the model door; every task yields one score
row per metric, with its grade or its failure (a failure is never a low grade). Score rows carry the value in
[0, 1] (matching accuracy, or (grade − 1) / 9), the raw grade, and `scaled`: the paper's 0–100 number
(accuracy × 100, grade × 10).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd

from steps.judges.graded import Scale, judge_graded
from steps.judges.prompts import render, version
from steps.judges.result import RULE, Judgement
from steps.llm import Completer, ModelConfig
from steps.sections import JudgeProbeParams

TEMPLATES = Path(__file__).parent / "templates" / "judge"
SCENARIO = "MILE"


@cache
def template_source(name: str) -> str:
    return (TEMPLATES / name).read_text(encoding="utf-8")


def render_judge(name: str, context: dict[str, Any]) -> str:
    return render(template_source(name), context, inline=True)


def judge_version(name: str) -> str:
    return version(f"mile.{name.removesuffix('.j2')}", template_source(name))


@dataclass(frozen=True)
class JudgeTask:
    instance_id: str
    stage: str  # goal | interaction | consistency
    metrics: dict[str, str]  # answer key -> metric label
    prompt: str
    scale: Scale
    prompt_version: str
    kind: str  # judge kind, read by the proxy judge
    turn: int | None = None
    inputs: dict[str, Any] = field(default_factory=dict)  # what the proxy judge reads (scripted models only)


def score_row(
    instance_id: str,
    stage: str,
    metric: str,
    *,
    turn: int | None = None,
    grade: float | None = None,
    scaled: float | None = None,
    reason: str = "",
    detail: str = "",
    judged: dict[str, Any] | None = None,
    **rule: Any,
) -> dict[str, Any]:
    """One row of scores.parquet: a judgement's judged-row columns (`judged`), or a rule's value or failure
    (`rule`: value, failure, error)."""
    return {
        "instance_id": instance_id,
        "stage": stage,
        "metric": metric,
        "turn": turn,
        "grade": grade,
        "scaled": scaled,
        **(judged if judged is not None else RULE.row(**rule)),
        "reason": reason,
        "detail": detail,
    }


def _row(task: JudgeTask, metric: str, j: Judgement) -> dict[str, Any]:
    grade = j.evidence.get("score") if j.ok else None
    return score_row(
        task.instance_id,
        task.stage,
        metric,
        turn=task.turn,
        grade=grade,
        scaled=grade * 10 if grade is not None else None,
        reason=str(j.evidence.get("reason", "")) if j.ok else "",
        judged=j.row(),
    )


async def _one(door: Completer, model: ModelConfig, task: JudgeTask) -> list[dict[str, Any]]:
    metadata = {"scenario": SCENARIO, "instance_id": task.instance_id, "judge_kind": task.kind, **task.inputs}
    judged = await judge_graded(
        door, model, task.prompt, task.scale, prompt_version=task.prompt_version, metadata=metadata
    )
    return [_row(task, metric, judged[key]) for key, metric in task.metrics.items()]


def grade_key(task: JudgeTask, metric: str) -> str:
    """One grade's key among a run's: instance, stage, (an interaction's) turn and metric."""
    return "/".join([task.instance_id, task.stage, *([] if task.turn is None else [str(task.turn)]), metric])


def task_key(task: JudgeTask) -> str:
    """A judge call's key among a run's: its grades' keys."""
    return "+".join(grade_key(task, m) for m in task.metrics.values())


async def probe_tasks(
    door: Completer, model: ModelConfig, tasks: Sequence[JudgeTask], probes: JudgeProbeParams
) -> pd.DataFrame:
    """The judge probes (`steps.judges.probes`) of the graded judge on a seeded sample of its calls: round 0 is the
    judgement itself (asked again: the cache answers), then `repeats` re-judgements with the seed moved by the round;
    one row per grade (`grade_key`). No shuffle: a graded answer has no rubric items."""
    from steps.judges.probes import REPEAT, probe_frame, probe_row, reseeded, sample_ids

    if not probes.sample or not probes.repeats:
        return probe_frame([])
    keys = set(sample_ids([task_key(t) for t in tasks], probes.sample, probes.seed))
    chosen = [t for t in tasks if task_key(t) in keys]

    async def one(task: JudgeTask) -> list[dict[str, Any]]:
        metadata = {"scenario": SCENARIO, "instance_id": task.instance_id, "judge_kind": task.kind, **task.inputs}
        asks = [(0, model), *((r, reseeded(model, r)) for r in range(1, probes.repeats + 1))]
        answers = await asyncio.gather(
            *(
                judge_graded(door, m, task.prompt, task.scale, prompt_version=task.prompt_version, metadata=metadata)
                for _, m in asks
            )
        )
        return [
            probe_row(grade_key(task, metric), REPEAT, r, judged[key])
            for (r, _), judged in zip(asks, answers, strict=True)
            for key, metric in task.metrics.items()
        ]

    rows = await asyncio.gather(*(one(t) for t in chosen))
    return probe_frame([row for group in rows for row in group])


async def run_tasks(
    door: Completer, model: ModelConfig, tasks: Sequence[JudgeTask], on_done: Callable[[], None] | None = None
) -> list[dict[str, Any]]:
    """Ask every task (the door bounds concurrency); rows come back in task order."""

    async def one(task: JudgeTask) -> list[dict[str, Any]]:
        rows = await _one(door, model, task)
        if on_done is not None:
            on_done()
        return rows

    results = await asyncio.gather(*(one(t) for t in tasks))
    return [row for rows in results for row in rows]

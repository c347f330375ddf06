"""A run's evaluation: its tables turned into `Case`s, each case scored by its environment's evaluator (the family
its registration names) on its metrics, rows in a stable order.

A dialogue broken outside the agent's control (a failed model call, a silent environment role) is, by default,
not scored: each of its scenario's metrics gets one `dialogue_failed` row, counted in the reports
(`J1EvalParams.call_failed = "score"` scores whatever the transcript holds instead).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import pandas as pd

from steps.j1.envs.registry import environment
from steps.j1.envs.schemas import typed_truth
from steps.j1.eval import consultation, court, drafting
from steps.j1.eval.case import Case, Panel
from steps.j1.eval.records import Row, ScoreRow
from steps.j1.eval.schemas import J1_METRICS
from steps.j1.params import J1EvalParams

Evaluator = Callable[[Case, Panel, J1EvalParams], Awaitable[list[ScoreRow]]]
EVALUATORS: dict[str, Evaluator] = {  # an environment's `evaluator` → the family's evaluation
    "consultation": consultation.evaluate,
    "drafting": drafting.evaluate,
    "court": court.evaluate,
}


def metrics_of(scenario: str) -> tuple[str, ...]:
    """The metrics an environment is scored on (its registration's)."""
    return environment(scenario).metrics


def evaluator_of(scenario: str) -> Evaluator:
    return EVALUATORS[environment(scenario).evaluator]


def agent_role(scenario: str) -> str:
    """The role the agent under test plays in a scenario."""
    return environment(scenario).agent_role


def build_cases(instances: pd.DataFrame, turns: pd.DataFrame, deliverables: pd.DataFrame) -> list[Case]:
    """One case per deliverable row, joined to its instance by id (a run's instance missing from the instance
    table is an error: the run and the instances are out of step)."""
    truths = {r["instance_id"]: r for r in instances[["instance_id", "scenario", "ground_truth"]].to_dict("records")}
    missing = sorted(set(deliverables.instance_id) - set(truths))
    if missing:
        raise ValueError(
            f"{len(missing)} run instance(s) not in instances.parquet (first {missing[0]}): the run "
            "is older than the instances; rerun simulate"
        )
    by_instance: dict[str, list[dict[str, Any]]] = {}
    for turn in _records(turns.sort_values(["instance_id", "turn_index"], kind="stable")):
        by_instance.setdefault(turn["instance_id"], []).append(turn)
    cases = []
    for d in _records(deliverables.sort_values("instance_id", kind="stable")):
        source = truths[d["instance_id"]]
        if source["scenario"] != d["scenario"]:
            raise ValueError(f"{d['instance_id']}: {d['scenario']} in the run, {source['scenario']} in instances")
        truth = typed_truth(d["scenario"], source["ground_truth"])
        cases.append(
            Case(
                d["instance_id"],
                d["scenario"],
                truth,
                by_instance.get(d["instance_id"], []),
                d,
                agent_role(d["scenario"]),
            )
        )
    return cases


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as dicts with missing values as None (pandas reads a null string as NaN, which is truthy)."""
    return frame.astype(object).where(frame.notna(), None).to_dict("records")


async def evaluate_case(case: Case, panel: Panel, options: J1EvalParams) -> list[ScoreRow]:
    broken = case.broken_by()
    if broken is not None and options.call_failed == "exclude":
        row = Row(case.instance_id, case.scenario)
        return [row.dialogue_failed(metric, broken) for metric in metrics_of(case.scenario)]
    return await evaluator_of(case.scenario)(case, panel, options)


async def evaluate_run(
    cases: Iterable[Case], panel: Panel, options: J1EvalParams, on_done: Callable[[], Any] | None = None
) -> list[ScoreRow]:
    """Every case concurrently (the model door bounds the judge's concurrency); rows by instance, then metric
    and component, so the table does not depend on the order calls finish in."""

    async def one(case: Case) -> list[ScoreRow]:
        rows = await evaluate_case(case, panel, options)
        if on_done is not None:
            on_done()
        return rows

    results = await asyncio.gather(*(one(c) for c in cases))
    rows = [r for rows in results for r in rows]
    order = {m: i for i, m in enumerate(J1_METRICS)}
    return sorted(rows, key=lambda r: (r.instance_id, order[r.metric], r.component != "", _component_key(r.component)))


def _component_key(component: str) -> tuple[int, str]:
    """T2 before T10; names as they are."""
    if component[:1] == "T" and component[1:].isdigit():
        return int(component[1:]), ""
    return 0, component


def score_frame(rows: list[ScoreRow], *, run_id: str, agent: str) -> pd.DataFrame:
    """The scores table of a run (columns of `steps.schemas.J1Scores`)."""
    records = [r.record() for r in rows]
    frame = pd.DataFrame(records, columns=list(ScoreRow.__dataclass_fields__))
    frame.insert(0, "agent", agent)
    frame.insert(0, "run_id", run_id)
    return frame

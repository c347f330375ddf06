"""Asking a model under test: one call per task (single-turn, as in the paper), plus the multi-turn
consultation variant (ours) whose dialogues come from the engine. Failed calls stay as rows with their
failure kind and no response: counted, never judged as empty answers. A reasoning model's trace is never judged:
the door gives the answer only (steps/llm/reasoning.py) and the trace is kept in the `reasoning` column. A reply
with nothing left once the trace is removed (or a consultation in which the lawyer asked nothing) is an empty
answer: `outcome` `empty_answer`, response `""`, never sent to the judge and scored 0 by rule
(steps/plawbench/judging.py).
"""

from __future__ import annotations

import pandas as pd

from steps.llm import EMPTY_ANSWER, ModelConfig, Reply, Request, outcome, reasoning_of
from steps.plawbench.dialogue import VARIANT as MULTITURN
from steps.plawbench.dialogue import lawyer_questions
from steps.plawbench.params import PlawBenchParams
from steps.plawbench.prompts import agent_messages
from steps.plawbench.scripted import oracle_answer, scenario_of
from steps.simulate import Dialogue, EndReason

SINGLE = "single"
PROMPT_VERSION = 1  # bump when the request construction changes: it enters the run id


def select_tasks(tasks: pd.DataFrame, limit: int | None, scenarios: list[str] | None = None) -> pd.DataFrame:
    """The first `limit` tasks of every scenario (all of them when None), of the given scenarios (None: all), in the
    tasks table's order. An unknown scenario is an error naming the known ones."""
    if scenarios is not None:
        unknown = sorted(set(scenarios) - set(tasks.scenario))
        if unknown:
            known = ", ".join(tasks.scenario.drop_duplicates())
            raise ValueError(f"plawbench.scenarios: unknown {', '.join(unknown)}; the scenarios are {known}")
        tasks = tasks[tasks.scenario.isin(scenarios)]
    if limit is None:
        return tasks.reset_index(drop=True)
    return tasks.groupby("scenario", sort=False).head(limit).reset_index(drop=True)


def build_requests(
    tasks: pd.DataFrame, rubric: pd.DataFrame, agent: ModelConfig, options: PlawBenchParams
) -> list[Request]:
    by_task = dict(tuple(rubric.groupby("item_id", sort=False)))
    return [
        Request(
            model=agent,
            messages=agent_messages(t, options),
            purpose="agent",
            metadata={
                "scenario": scenario_of(t.category),
                "instance_id": t.item_id,
                "task": t.category,
                "reference": oracle_answer(t, by_task[t.item_id]),
            },
        )
        for t in tasks.itertuples(index=False)
    ]


def responses_frame(
    tasks: pd.DataFrame, requests: list[Request], replies: list[Reply], agent: str, run_id: str
) -> pd.DataFrame:
    if not len(tasks) == len(requests) == len(replies):
        raise ValueError(f"{len(tasks)} tasks, {len(requests)} requests, {len(replies)} replies")
    return pd.DataFrame(
        {
            "agent": agent,
            "run_id": run_id,
            "item_id": tasks.item_id.to_numpy(),
            "category": tasks.category.to_numpy(),
            "scenario": tasks.scenario.to_numpy(),
            "variant": SINGLE,
            "prompt": ["\n\n".join(m["content"] for m in r.messages) for r in requests],
            "response": [r.text if r.ok else None for r in replies],
            "failure": [None if r.ok else f"{r.kind.value}: {r.message}"[:300] for r in replies],
            "call_key": [r.call_key for r in replies],
            "truncated": [r.ok and r.truncated for r in replies],
            "turns": 1,
            "ended_by": "",
            "outcome": [outcome(r) if r.ok else None for r in replies],
            "reasoning": [reasoning_of(r) for r in replies],
        }
    )


def multiturn_frame(tasks: pd.DataFrame, dialogues: list[Dialogue], agent: str, run_id: str) -> pd.DataFrame:
    """One row per multi-turn consultation, its response the lawyer's questions (`lawyer_questions`); a dialogue
    cut short by a failed call is a failure row."""
    by_id = {d.instance_id: d for d in dialogues}
    rows = []
    for t in tasks.itertuples(index=False):
        d = by_id[t.item_id]
        failed = d.ended_by is EndReason.CALL_FAILED
        last_failure = next((x.failure for x in reversed(d.turns) if x.failure), None)
        questions = None if failed else lawyer_questions(d)
        rows.append(
            {
                "agent": agent,
                "run_id": run_id,
                "item_id": t.item_id,
                "category": t.category,
                "scenario": t.scenario,
                "variant": MULTITURN,
                "prompt": "",
                "response": questions,
                "failure": (last_failure or "call_failed")[:300] if failed else None,
                "call_key": next((x.call_key for x in reversed(d.turns) if x.speaker == "lawyer"), ""),
                "truncated": not failed and any(x.truncated for x in d.turns if x.speaker == "lawyer"),
                "turns": d.exchanges,
                "ended_by": d.ended_by.value if d.ended_by else "",
                "outcome": EMPTY_ANSWER if questions is not None and not questions.strip() else None,
                "reasoning": None,  # the lawyer's traces are in the turns table
            }
        )
    return pd.DataFrame(rows)

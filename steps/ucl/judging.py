"""Judging one agent's run: pairwise against the reference in both orders, and the pointwise hint score.

A plain step over DataFrames: the flow reads the tables, opens the model door and writes what this returns.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any

import pandas as pd

from steps.judges.pairwise import LOSE, POINTS, SWAPPED, TIE, VERDICTS, WIN
from steps.judges.result import JudgedBy, Judgement
from steps.llm import Completer, ModelConfig
from steps.ucl.cases import AGENT_FAILED, AGENT_MISSING, Case, failed_dialogue, item_cases, pair_up
from steps.ucl.hint_judge import hints_version, judge_all_hints
from steps.ucl.pairs import CANDIDATE_FIRST, judge_metadata, judge_pairs, verdict_rows
from steps.ucl.params import UclParams
from steps.ucl.version import protocol_version

HINT_COLUMNS = [
    "run_id",
    "agent",
    "item_id",
    "task",
    "value",
    "failure",
    "error",
    "hint_free",
    "items",
    "met",
    "partial",
    "forbidden_mentioned",
    "holistic",
    "attempts",
    "truncated",
    "raw",
    "judge",
    "judge_proxy",
    "judge_prompt_version",
]


@dataclass(frozen=True)
class RunIds:
    agent: str
    run_id: str
    reference: str
    reference_run_id: str


def hint_rows(
    cases: dict[str, Case],
    jobs: list[tuple[Case, str, dict]],
    judged: list[Judgement],
    excluded: dict[str, str],
    by: JudgedBy,
    **meta: Any,
) -> pd.DataFrame:
    """One row per expected item; `meta` fills run_id and agent, `by` the judge of the excluded items' rows."""
    rows = []
    for (case, _, _), j in zip(jobs, judged, strict=True):
        ev = j.evidence
        status = ev.get("status", {})
        rows.append(
            {
                **meta,
                "item_id": case.item_id,
                "task": case.task,
                **j.row(),
                "hint_free": bool(ev.get("hint_free", False)),
                "items": sum(i.level != "forbidden" for i in case.items),
                "met": sum(s == "met" for s in status.values()),
                "partial": sum(s == "partial" for s in status.values()),
                "forbidden_mentioned": sum(bool(v) for v in ev.get("mentioned", {}).values()),
                "holistic": ev.get("score"),
                "raw": j.raw,
            }
        )
    for item_id, reason in excluded.items():
        case = cases[item_id]
        rows.append(
            {
                **meta,
                "item_id": item_id,
                "task": case.task,
                **by.row(failure=reason),
                "hint_free": False,
                "items": sum(i.level != "forbidden" for i in case.items),
                "met": 0,
                "partial": 0,
                "forbidden_mentioned": 0,
                "holistic": None,
                "raw": "",
            }
        )
    df = pd.DataFrame(rows, columns=HINT_COLUMNS)
    return df.sort_values(["task", "item_id"], kind="stable").reset_index(drop=True)


def _hint_jobs(cases: dict[str, Case], dialogues: pd.DataFrame, protocol: str):
    by_id = {r["instance_id"]: r for r in dialogues.to_dict("records")}
    jobs, excluded = [], {}
    for item_id, case in cases.items():
        row = by_id.get(item_id)
        if row is None or failed_dialogue(row):
            excluded[item_id] = AGENT_MISSING if row is None else AGENT_FAILED
        else:
            jobs.append((case, row["transcript"], judge_metadata(case, protocol)))
    return jobs, excluded


@contextmanager
def _silent(total: int):
    yield lambda *_: None


async def _judge(
    door: Completer, judge: ModelConfig, ucl: UclParams, protocol: str, pairs, hint_jobs, on_call: Callable[..., None]
):
    verdicts = judge_pairs(
        door, judge, pairs, retries=ucl.judge_retries, protocol=protocol, prompts=ucl.prompts, on_done=on_call
    )
    hints = judge_all_hints(door, judge, hint_jobs, on_done=on_call)
    return await asyncio.gather(verdicts, hints)


def judge_run(
    door: Completer,
    judge: ModelConfig,
    ucl: UclParams,
    items: pd.DataFrame,
    dialogues: pd.DataFrame,
    reference: pd.DataFrame,
    ids: RunIds,
    progress: Callable[[int], AbstractContextManager[Callable[..., None]]] | None = None,
    protocol: str | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(verdicts, hint scores) of one agent's dialogues by `judge` reading the `ucl.prompts` pairwise prompt, with
    `ucl.judge_retries` repair rounds and, with `ucl.pointwise`, the hint scores; `items` are the expected items
    (the ucl table rows). `protocol` (default `protocol_version()`) is what the proxy judge reads.

    `progress(total)` opens a progress bar and yields its advance function (called once per judged pair and
    once per hint judgement).
    """
    cases = item_cases(items)
    pairs, excluded = pair_up(cases, dialogues, reference)
    protocol = protocol or protocol_version()
    hint_jobs, hint_excluded = _hint_jobs(cases, dialogues, protocol) if ucl.pointwise else ([], {})
    with (progress or _silent)(len(pairs) + len(hint_jobs)) as advance:
        verdicts, judged = asyncio.run(_judge(door, judge, ucl, protocol, pairs, hint_jobs, advance))
    verdict_df = verdict_rows(
        pairs,
        verdicts,
        excluded,
        cases,
        judge,
        ucl.prompts,
        run_id=ids.run_id,
        reference_run_id=ids.reference_run_id,
        agent=ids.agent,
        reference=ids.reference,
    )
    if not ucl.pointwise:
        return verdict_df, pd.DataFrame(columns=HINT_COLUMNS)
    by = JudgedBy.of(judge, hints_version())
    hint_df = hint_rows(cases, hint_jobs, judged, hint_excluded, by, run_id=ids.run_id, agent=ids.agent)
    return verdict_df, hint_df


def probe_hints(
    door: Completer,
    judge: ModelConfig,
    ucl: UclParams,
    items: pd.DataFrame,
    dialogues: pd.DataFrame,
    hints: pd.DataFrame,
    protocol: str | None = None,
) -> pd.DataFrame:
    """The judge probes (`steps.judges.probes`) of the hint judge on a seeded sample of the items it valued: round 0
    is the judgement itself (asked again: the cache answers), then `repeats` re-judgements with the seed moved by the
    round and one with the guidance items in a seeded random order. Empty without `ucl.pointwise`."""
    from dataclasses import replace
    from random import Random

    from steps.judges.probes import REPEAT, SHUFFLE, probe_frame, probe_row, reseeded, sample_ids
    from steps.ucl.hint_judge import judge_hints

    probes = ucl.judge_probes
    if not ucl.pointwise or hints.empty or not (probes.repeats or probes.shuffle):
        return probe_frame([])
    valued = hints[hints.value.notna()].item_id.tolist()
    keys = set(sample_ids(valued, probes.sample, probes.seed))
    jobs, _ = _hint_jobs(item_cases(items), dialogues, protocol or protocol_version())
    chosen = [job for job in jobs if job[0].item_id in keys]

    async def one(n: int, case: Case, transcript: str, meta: dict[str, Any]) -> list[dict[str, Any]]:
        moved = list(case.items)
        Random(probes.seed + n).shuffle(moved)
        asks = [
            (REPEAT, 0, judge, case),
            *((REPEAT, r, reseeded(judge, r), case) for r in range(1, probes.repeats + 1)),
        ]
        if probes.shuffle:
            asks.append((SHUFFLE, 1, judge, replace(case, items=moved)))
        answers = await asyncio.gather(*(judge_hints(door, m, c, transcript, metadata=meta) for _, _, m, c in asks))
        return [probe_row(case.item_id, p, r, a) for (p, r, _, _), a in zip(asks, answers, strict=True)]

    async def every() -> list[list[dict[str, Any]]]:
        return list(await asyncio.gather(*(one(n, *job) for n, job in enumerate(chosen))))

    return probe_frame([row for rows in asyncio.run(every()) for row in rows])


def panel_verdict(row: pd.Series) -> pd.Series:
    """An aggregated verdict as a verdict: a win above 0.5, a loss below, a tie at 0.5 (a verdict is a category:
    its value becomes the outcome's points), with the [[d]] a judge gives in the row's order for that outcome."""
    outcome = WIN if row["value"] > 0.5 else LOSE if row["value"] < 0.5 else TIE
    shown = outcome if row["order"] == CANDIDATE_FIRST else SWAPPED[outcome]
    row["value"], row["outcome"] = POINTS[outcome], outcome
    row["verdict"] = next(d for d, o in VERDICTS.items() if o == shown)
    return row

"""Pairwise judging of an agent's dialogues against the reference's, in both orders (spec ucl-bench §4.1).

Each pair is judged with the reference first and with the candidate first (the paper judges one random
order); each verdict is mapped back to the candidate. The output has one row per (item, order): the verdict
that counted, the candidate's outcome and points (win 1, tie 0.5, lose 0), or the failure that excludes it
(judge call failed, unparsable or out-of-range after the repair rounds, or a dialogue that could not be
judged). The report's SQL turns these rows into win rates.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from steps.judges.pairwise import PairVerdict, judge_both_orders
from steps.judges.prompts import version
from steps.judges.result import JudgedBy
from steps.llm import Completer, ModelConfig
from steps.ucl.cases import Pair

TEMPLATE = Path(__file__).parent / "templates" / "judge_pairwise.j2"
NAME = "ucl.pairwise"
CANDIDATE_FIRST, REFERENCE_FIRST = "candidate_first", "reference_first"
VERDICT_COLUMNS = [
    "run_id",
    "reference_run_id",
    "agent",
    "reference",
    "item_id",
    "task",
    "order",
    "verdict",
    "outcome",
    "value",
    "failure",
    "error",
    "attempts",
    "truncated",
    "raw",
    "judge",
    "judge_proxy",
    "judge_prompt_version",
]


def template_source() -> str:
    return TEMPLATE.read_text(encoding="utf-8")


def judge_metadata(pair_or_case: Any, protocol: str) -> dict[str, Any]:
    """What the proxy judge reads (real judges never see metadata)."""
    case = getattr(pair_or_case, "case", pair_or_case)
    return {
        "scenario": "UCL",
        "instance_id": case.item_id,
        "task": case.task,
        "needs": case.needs,
        "items": [{"id": i.id, "level": i.level, "text": i.text} for i in case.items],
        "protocol": protocol,
    }


async def judge_pairs(
    door: Completer,
    judge: ModelConfig,
    pairs: list[Pair],
    *,
    retries: int,
    protocol: str,
    on_done: Callable[..., None] | None = None,
) -> list[PairVerdict]:
    """Both orders of every pair, concurrently (the door bounds the endpoint); results in input order."""
    source = template_source()

    async def one(pair: Pair) -> PairVerdict:
        verdict = await judge_both_orders(
            door,
            judge,
            template=source,
            candidate=pair.candidate,
            baseline=pair.reference,
            context=pair.case.context,
            name=NAME,
            metadata=judge_metadata(pair, protocol),
            retries=retries,
        )
        if on_done is not None:
            on_done()
        return verdict

    return list(await asyncio.gather(*(one(p) for p in pairs)))


def verdict_rows(
    pairs: list[Pair],
    verdicts: list[PairVerdict],
    excluded: dict[str, str],
    tasks: dict[str, str],
    judge: ModelConfig,
    **meta: Any,
) -> pd.DataFrame:
    """One row per (item, order): the candidate's points in that order (`value`) or the failure that excludes
    it; `meta` fills run_id, reference_run_id, agent, reference; `tasks` maps the excluded items to their task."""
    by = JudgedBy.of(judge, version(NAME, template_source()))
    rows = []
    for pair, pv in zip(pairs, verdicts, strict=True):
        for order, j in zip((CANDIDATE_FIRST, REFERENCE_FIRST), pv.judgements(by), strict=True):
            item = {"item_id": pair.case.item_id, "task": pair.case.task, "order": order}
            rows.append({**meta, **item, **j.evidence, **j.row(), "raw": j.raw})
    for item_id, reason in excluded.items():
        for order in (CANDIDATE_FIRST, REFERENCE_FIRST):
            item = {"item_id": item_id, "task": tasks[item_id], "order": order}
            rows.append({**meta, **item, "verdict": None, "outcome": None, **by.row(failure=reason), "raw": ""})
    df = pd.DataFrame(rows, columns=VERDICT_COLUMNS)
    df["verdict"] = df["verdict"].astype("Int64")
    return df.sort_values(["task", "item_id", "order"], kind="stable").reset_index(drop=True)

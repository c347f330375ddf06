"""Pairwise judging of an agent's dialogues against the reference's, in both orders (spec ucl-bench §4.1).

Each pair is judged with the reference first and with the candidate first (the paper judges one random
order); each verdict is mapped back to the candidate. The output has one row per (item, order): the verdict
that counted, the candidate's outcome and points (win 1, tie 0.5, lose 0), or the failure that excludes it
(judge call failed, unparsable or out-of-range after the repair rounds, or a dialogue that could not be
judged). The report's SQL turns these rows into win rates.

The prompt is the task's released evaluation template (`ucl.prompts: released`, filled as the original code did;
each row's `judge_prompt_version` names its task's template by hash) or ours (templates/judge/judge_pairwise.j2).
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
from steps.ucl.cases import Case, Pair
from steps.ucl.prompts import RELEASED, PromptSource, fill

TEMPLATE = Path(__file__).parent / "templates" / "judge" / "judge_pairwise.j2"
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


# the released judge: the task's evaluation template with its five placeholders filled (`fill`, one pass)
RELEASED_TEMPLATE = (
    "{{ fill(template, information=information, needs=needs, evaluation_hints=evaluation_hints,"
    " dialogue1=answer_1, dialogue2=answer_2) }}"
)
RELEASED_NAME = "ucl.pairwise.released"


def judge_prompt(case: Case, prompts: PromptSource) -> tuple[str, dict[str, Any]]:
    """The Jinja source the pairwise judge renders for `case` (with `answer_1`, `answer_2`), and its slots."""
    if prompts == RELEASED:
        return RELEASED_TEMPLATE, {**case.released, "fill": fill}
    return template_source(), case.context


def prompt_version(case: Case, prompts: PromptSource) -> str:
    """The version of the prompt `case` is judged with: ours by its file, the released one by its task's template."""
    if prompts == RELEASED:
        return version(RELEASED_NAME, RELEASED_TEMPLATE, case.released["template"])
    return version(NAME, template_source())


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
    prompts: PromptSource = RELEASED,
    on_done: Callable[..., None] | None = None,
) -> list[PairVerdict]:
    """Both orders of every pair, concurrently (the door bounds the endpoint); results in input order."""

    async def one(pair: Pair) -> PairVerdict:
        template, context = judge_prompt(pair.case, prompts)
        verdict = await judge_both_orders(
            door,
            judge,
            template=template,
            candidate=pair.candidate,
            baseline=pair.reference,
            context=context,
            name=RELEASED_NAME if prompts == RELEASED else NAME,
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
    cases: dict[str, Case],
    judge: ModelConfig,
    prompts: PromptSource = RELEASED,
    **meta: Any,
) -> pd.DataFrame:
    """One row per (item, order): the candidate's points in that order (`value`) or the failure that excludes
    it, with the version of the prompt it was (or would have been) judged with; `meta` fills run_id,
    reference_run_id, agent, reference; `cases` are the items by id."""

    def by(case: Case) -> JudgedBy:
        return JudgedBy.of(judge, prompt_version(case, prompts))

    rows = []
    for pair, pv in zip(pairs, verdicts, strict=True):
        for order, j in zip((CANDIDATE_FIRST, REFERENCE_FIRST), pv.judgements(by(pair.case)), strict=True):
            item = {"item_id": pair.case.item_id, "task": pair.case.task, "order": order}
            rows.append({**meta, **item, **j.evidence, **j.row(), "raw": j.raw})
    for item_id, reason in excluded.items():
        for order in (CANDIDATE_FIRST, REFERENCE_FIRST):
            item = {"item_id": item_id, "task": cases[item_id].task, "order": order}
            failed = by(cases[item_id]).row(failure=reason)
            rows.append({**meta, **item, "verdict": None, "outcome": None, **failed, "raw": ""})
    df = pd.DataFrame(rows, columns=VERDICT_COLUMNS)
    df["verdict"] = df["verdict"].astype("Int64")
    return df.sort_values(["task", "item_id", "order"], kind="stable").reset_index(drop=True)

"""Pairwise judge in both orders (UCL-Bench style): which of two responses is better, or a tie.

The caller supplies the prompt (a Jinja source with `answer_1`, `answer_2` and its own slots) that asks for a
final [[1]] (the first response is better), [[2]] (the second is) or [[3]] (a tie). The last [[d]] in the
answer counts. The pair is judged twice, candidate first and candidate second, and the second verdict is mapped
back to the candidate, so position bias shows as an inconsistent pair instead of hiding in the score. An answer
without a verdict is shown the problem and asked once more; then it is a failure.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from steps.judges.prompts import render, version
from steps.judges.result import JudgeFailure, Judgement
from steps.llm import ModelConfig

KIND = "pairwise"
WIN, LOSE, TIE = "win", "lose", "tie"
VERDICTS = {1: WIN, 2: LOSE, 3: TIE}  # for the response shown first
POINTS = {WIN: 1.0, TIE: 0.5, LOSE: 0.0}
SWAPPED = {WIN: LOSE, LOSE: WIN, TIE: TIE}
REPAIR = "你上一次的回答无法使用：{error}。请重新作答，并在最后只写出 [[1]]、[[2]] 或 [[3]] 中的一个作为结论。"

_VERDICT = re.compile(r"\[\[\s*(\d+)\s*\]\]")
_THINK = re.compile(r"<think>.*?</think>", re.S)


def parse_verdict(text: str) -> tuple[str | None, JudgeFailure | None, str]:
    """The outcome for the first response from the last [[d]] in `text`, or why there is none."""
    found = _VERDICT.findall(_THINK.sub("", text))
    if not found:
        return None, JudgeFailure.UNPARSABLE, "no [[1]], [[2]] or [[3]] in the answer"
    last = int(found[-1])
    if last not in VERDICTS:
        return None, JudgeFailure.OUT_OF_RANGE, f"[[{last}]] is not one of [[1]], [[2]], [[3]]"
    return VERDICTS[last], None, ""


@dataclass(frozen=True)
class OrderVerdict:
    outcome: str | None  # for the response shown first
    failure: JudgeFailure | None
    error: str
    raw: str
    attempts: int
    call_keys: tuple[str, ...]


async def ask_verdict(door: Any, model: ModelConfig, prompt: str, *, metadata: dict[str, Any]) -> OrderVerdict:
    """One order: the verdict, with one repair round when the answer holds none."""
    messages = [{"role": "user", "content": prompt}]
    keys: list[str] = []
    raw, failure, error = "", JudgeFailure.UNPARSABLE, ""
    for attempt in (1, 2):
        reply = await door.complete(model, messages, purpose="judge", metadata=metadata)
        keys.append(reply.call_key)
        if not reply.ok:
            return OrderVerdict(None, JudgeFailure.CALL_FAILED, reply.message, raw, attempt, tuple(keys))
        raw = reply.text
        outcome, failure, error = parse_verdict(raw)
        if failure is None:
            return OrderVerdict(outcome, None, "", raw, attempt, tuple(keys))
        messages = [
            *messages,
            {"role": "assistant", "content": raw},
            {"role": "user", "content": REPAIR.format(error=error)},
        ]
    return OrderVerdict(None, failure, error, raw, 2, tuple(keys))


async def judge_pairwise(
    door: Any,
    model: ModelConfig,
    *,
    template: str,
    candidate: str,
    baseline: str,
    context: Mapping[str, Any] | None = None,
    name: str = KIND,
    metadata: dict[str, Any] | None = None,
) -> Judgement:
    """The candidate against the baseline in both orders; value = mean points (win 1, tie 0.5, lose 0).

    Args:
        template: Jinja source rendered with `answer_1`, `answer_2` and `context`.
        name: the prompt's name in its version (e.g. ucl.consultation).
        metadata: call metadata; `reference` in it is used by the proxy judge. The call cache keys on the
            prompt only, so a template whose verdict should depend on a reference must render it.
    """
    slots = dict(context or {})
    first = {**slots, "answer_1": candidate, "answer_2": baseline}
    second = {**slots, "answer_1": baseline, "answer_2": candidate}
    meta = {**(metadata or {}), "judge_kind": KIND}
    orders = await asyncio.gather(
        ask_verdict(door, model, render(template, first, inline=True), metadata={**meta, **_shown(first)}),
        ask_verdict(door, model, render(template, second, inline=True), metadata={**meta, **_shown(second)}),
    )
    outcomes = [orders[0].outcome, SWAPPED.get(orders[1].outcome) if orders[1].outcome else None]
    failed = next((o for o in orders if o.failure is not None), None)
    evidence = {
        "candidate_outcomes": outcomes,  # candidate shown first, candidate shown second
        "consistent": None if failed else outcomes[0] == outcomes[1],
    }
    return Judgement(
        value=None if failed else sum(POINTS[o] for o in outcomes) / 2,
        failure=failed.failure if failed else None,
        raw="\n\n".join(o.raw for o in orders),
        prompt_version=version(name, template),
        judge_model=model.model,
        proxy=model.is_scripted,
        evidence=evidence,
        error=failed.error if failed else "",
        attempts=sum(o.attempts for o in orders),
        call_keys=tuple(k for o in orders for k in o.call_keys),
    )


def _shown(slots: Mapping[str, Any]) -> dict[str, Any]:
    return {"answer_1": slots["answer_1"], "answer_2": slots["answer_2"]}

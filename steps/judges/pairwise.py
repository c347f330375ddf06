"""Pairwise judge in both orders (UCL-Bench style): which of two responses is better, or a tie.

The caller supplies the prompt (a Jinja source with `answer_1`, `answer_2` and its own slots) that asks for a
final [[1]] (the first response is better), [[2]] (the second is) or [[3]] (a tie). The last [[d]] in the
answer counts (spaces inside the brackets are tolerated; any other number is out of range). The pair is judged
twice, candidate shown first and candidate shown second, and each verdict is mapped back to the candidate, so
position bias shows as a disagreement between the orders instead of hiding in the score. An answer without a
verdict is shown the problem and asked again (`retries` times); then that order is a failure, recorded with
its raw text and never counted as a loss.

`judge_both_orders` returns both orders separately (`PairVerdict`): a benchmark can score each order as a
single-order protocol would, pool them, or require agreement. `judge_pairwise` folds them into one
`Judgement` (mean points of the two orders).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from steps.judges.prompts import render, version
from steps.judges.result import JudgedBy, JudgeFailure, Judgement
from steps.llm import Completer, ModelConfig
from steps.llm.capabilities import response_format
from steps.llm.reasoning import strip_reasoning

KIND = "pairwise"
WIN, LOSE, TIE = "win", "lose", "tie"
VERDICTS = {1: WIN, 2: LOSE, 3: TIE}  # for the response shown first
POINTS = {WIN: 1.0, TIE: 0.5, LOSE: 0.0}
SWAPPED = {WIN: LOSE, LOSE: WIN, TIE: TIE}
REPAIR = "你上一次的回答无法使用：{error}。请重新作答，并在最后只写出 [[1]]、[[2]] 或 [[3]] 中的一个作为结论。"

_VERDICT = re.compile(r"\[\[\s*(\d+)\s*\]\]")


class PairwiseAnswer(BaseModel):
    """The verdict as constrained output asks for it (a real judge whose endpoint supports it): the [[d]] first,
    then the reason, so an answer cut at max_tokens still holds its verdict. Free text keeps its last [[d]]."""

    model_config = ConfigDict(extra="ignore")
    verdict: Literal["[[1]]", "[[2]]", "[[3]]"]
    reason: str = ""


def _lists_options(marks: list[str]) -> bool:
    return {int(m) for m in marks} >= set(VERDICTS)


def parse_verdict(text: str) -> tuple[str | None, JudgeFailure | None, str]:
    """The outcome for the first response from the last [[d]] in `text`, or why there is none.

    A line naming all three verdicts lists the options (a judge reciting its instructions, as small real models
    do: "…写 [[1]]；…写 [[2]]；…写 [[3]]"), so it concludes nothing and is not read; a line that changes its mind
    ("起初倾向[[2]]，但应为[[1]]") keeps its last verdict.
    """
    answer = strip_reasoning(text).strip()
    if answer.startswith("{"):  # constrained output: the verdict key counts, not a [[d]] quoted in the reason
        try:
            verdict = PairwiseAnswer.model_validate(json.loads(answer)).verdict
            return VERDICTS[int(verdict.strip("[]"))], None, ""
        except ValueError:
            pass  # not the schema's object: read as free text
    lines = answer.splitlines()
    found = [v for line in lines if not _lists_options(marks := _VERDICT.findall(line)) for v in marks]
    if not found:
        if any(_VERDICT.search(line) for line in lines):
            return None, JudgeFailure.UNPARSABLE, "the answer only lists the options [[1]], [[2]], [[3]]; no verdict"
        return None, JudgeFailure.UNPARSABLE, "no [[1]], [[2]] or [[3]] in the answer"
    last = int(found[-1])
    if last not in VERDICTS:
        return None, JudgeFailure.OUT_OF_RANGE, f"[[{last}]] is not one of [[1]], [[2]], [[3]]"
    return VERDICTS[last], None, ""


@dataclass(frozen=True)
class OrderVerdict:
    """One order's answer. `outcome` is for the response shown first; None exactly when `failure` is set."""

    outcome: str | None
    failure: JudgeFailure | None
    error: str
    raw: str
    attempts: int
    call_keys: tuple[str, ...]
    prompt: str = ""
    truncated: bool = False  # the last answer was cut at max_tokens

    @property
    def verdict(self) -> int | None:
        """The [[d]] that counted (1, 2 or 3)."""
        return next((d for d, o in VERDICTS.items() if o == self.outcome), None)


async def ask_verdict(
    door: Completer, model: ModelConfig, prompt: str, *, metadata: dict[str, Any], retries: int = 1
) -> OrderVerdict:
    """One order: the verdict, with up to `retries` repair rounds when the answer holds none."""
    messages = [{"role": "user", "content": prompt}]
    keys: list[str] = []
    raw, error, cut = "", "", False
    failure: JudgeFailure | None = JudgeFailure.UNPARSABLE
    fmt = response_format(PairwiseAnswer, None, model.decoding.max_tokens)
    constrained: dict[str, Any] = {} if model.is_scripted else {"response_format": fmt}
    for attempt in range(1, retries + 2):
        reply = await door.complete(model, messages, purpose="judge", metadata=metadata, **constrained)
        keys.append(reply.call_key)
        if not reply.ok:
            return OrderVerdict(None, JudgeFailure.CALL_FAILED, reply.message, raw, attempt, tuple(keys), prompt)
        raw, cut = reply.text, reply.truncated
        outcome, failure, error = parse_verdict(raw)
        if failure is None:
            return OrderVerdict(outcome, None, "", raw, attempt, tuple(keys), prompt, cut)
        messages = [
            *messages,
            {"role": "assistant", "content": raw},
            {"role": "user", "content": REPAIR.format(error=error)},
        ]
    return OrderVerdict(None, failure, error, raw, retries + 1, tuple(keys), prompt, cut)


@dataclass(frozen=True)
class PairVerdict:
    """Both orders of one pair; `outcomes` are the candidate's (win / tie / lose) in each order, or None."""

    candidate_first: OrderVerdict
    candidate_second: OrderVerdict
    prompt_version: str

    @property
    def orders(self) -> tuple[OrderVerdict, OrderVerdict]:
        return self.candidate_first, self.candidate_second

    @property
    def outcomes(self) -> tuple[str | None, str | None]:
        second = self.candidate_second.outcome
        return self.candidate_first.outcome, SWAPPED[second] if second else None

    @property
    def complete(self) -> bool:
        return None not in self.outcomes

    @property
    def consistent(self) -> bool | None:
        """Whether both orders gave the candidate the same outcome (None when an order failed)."""
        return self.outcomes[0] == self.outcomes[1] if self.complete else None

    @property
    def balanced(self) -> str | None:
        """Order-balanced outcome: a win or a loss needs both orders; any disagreement is a tie."""
        if not self.complete:
            return None
        return self.outcomes[0] if self.consistent else TIE

    def judgements(self, by: JudgedBy) -> tuple[Judgement, Judgement]:
        """Each order as a judgement of the candidate: its points (win 1, tie 0.5, lose 0) or its failure."""
        first, second = (
            by.judgement(POINTS[o] if o else None, [order], {"verdict": order.verdict, "outcome": o})
            for order, o in zip(self.orders, self.outcomes, strict=True)
        )
        return first, second


def _shown(slots: Mapping[str, Any]) -> dict[str, Any]:
    return {"answer_1": slots["answer_1"], "answer_2": slots["answer_2"]}


async def judge_both_orders(
    door: Completer,
    model: ModelConfig,
    *,
    template: str,
    candidate: str,
    baseline: str,
    context: Mapping[str, Any] | None = None,
    name: str = KIND,
    metadata: dict[str, Any] | None = None,
    retries: int = 1,
) -> PairVerdict:
    """Judge the candidate against the baseline, candidate shown first and then second.

    Args:
        template: Jinja source rendered with `answer_1`, `answer_2` and `context`.
        name: the prompt's name in its version (e.g. ucl.pairwise).
        metadata: call metadata (read by the proxy judge, which also gets the two shown answers and
            `judge_kind`). The call cache keys a real judge on the prompt only, so whatever should change
            the verdict must be rendered into the prompt.
        retries: repair rounds per order after an answer without a valid verdict.
    """
    slots = dict(context or {})
    first = {**slots, "answer_1": candidate, "answer_2": baseline}
    second = {**slots, "answer_1": baseline, "answer_2": candidate}
    meta = {**(metadata or {}), "judge_kind": KIND}

    def ask(shown: dict[str, Any]):
        prompt = render(template, shown, inline=True)
        return ask_verdict(door, model, prompt, metadata={**meta, **_shown(shown)}, retries=retries)

    a, b = await asyncio.gather(ask(first), ask(second))
    return PairVerdict(a, b, version(name, template))


async def judge_pairwise(
    door: Completer,
    model: ModelConfig,
    *,
    template: str,
    candidate: str,
    baseline: str,
    context: Mapping[str, Any] | None = None,
    name: str = KIND,
    metadata: dict[str, Any] | None = None,
    retries: int = 1,
) -> Judgement:
    """The candidate against the baseline in both orders; value = mean points (win 1, tie 0.5, lose 0).

    A failure in either order fails the judgement (its kind and error are the first failed order's).
    See `judge_both_orders` for the arguments.
    """
    pair = await judge_both_orders(
        door,
        model,
        template=template,
        candidate=candidate,
        baseline=baseline,
        context=context,
        name=name,
        metadata=metadata,
        retries=retries,
    )
    evidence = {
        "candidate_outcomes": list(pair.outcomes),  # candidate shown first, candidate shown second
        "consistent": pair.consistent,
        "balanced": pair.balanced,
    }
    value = sum(POINTS[o] for o in pair.outcomes if o) / 2 if pair.complete else None
    return JudgedBy.of(model, pair.prompt_version).judgement(value, pair.orders, evidence)

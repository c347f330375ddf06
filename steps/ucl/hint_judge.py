"""Pointwise mode [ours, not the paper's protocol]: one dialogue scored against its own guidance.

The judge sees one transcript and the item's guidance split into items (spec ucl-bench §6.2) and answers
JSON: per item met / partial / unmet, per forbidden item whether it was mentioned, and a holistic 1–10
score. The value is `hints.hint_score` (weighted by level; forbidden mentions cost 0.1 each); an item without
any guidance (all public 6-2 items) takes the holistic score, normalised as (score − 1) / 9, and is flagged
`hint_free`. An absolute number that does not depend on a reference model; it is never put in a win-rate
column.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from steps.judges.asking import ask_json
from steps.judges.prompts import render, version
from steps.judges.result import JudgedBy, Judgement
from steps.llm import Completer, ModelConfig
from steps.llm.capabilities import TEXT, obj, one_each
from steps.ucl.cases import Case
from steps.ucl.hints import hint_score

TEMPLATE = Path(__file__).parent / "templates" / "judge" / "judge_hints.j2"
KIND = "ucl_hints"
CREDIT = {"met": 1.0, "partial": 0.5, "unmet": 0.0}


class _Identified(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str
    reason: str = ""

    @field_validator("id", mode="before")
    @classmethod
    def _clean_id(cls, value: Any) -> str:
        return str(value).strip().rstrip(".．、:：").upper()


class ItemCheck(_Identified):
    status: Literal["met", "partial", "unmet"]


class ForbiddenCheck(_Identified):
    mentioned: Literal["yes", "no"]


class HintAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    items: list[ItemCheck] = Field(default_factory=list)
    forbidden: list[ForbiddenCheck] = Field(default_factory=list)
    score: float = Field(ge=1, le=10, allow_inf_nan=False)
    reason: str = ""


@cache
def hint_schema(item_ids: tuple[str, ...], forbidden_ids: tuple[str, ...]) -> type[HintAnswer]:
    """The answer schema of one item: every point and every forbidden item answered exactly once."""

    class Complete(HintAnswer):
        @model_validator(mode="after")
        def _complete(self) -> Complete:
            for got, expected, what in (
                ([x.id for x in self.items], item_ids, "items"),
                ([x.id for x in self.forbidden], forbidden_ids, "forbidden"),
            ):
                if sorted(got) != sorted(expected):
                    raise PydanticCustomError(
                        "incomplete",
                        "answer each of {what} exactly once: expected {expected}, got {got}",
                        {"what": what, "expected": list(expected), "got": got},
                    )
            return self

        @classmethod
        def wire_schema(cls) -> dict[str, Any]:
            """Every point and forbidden item once, in order, and the score a whole number in 1-10 (constrained
            output; a grammar bounds integers only)."""
            items = [
                obj({"id": {"const": i}, "status": {"enum": list(CREDIT)}, "reason": TEXT}, ["id", "status"])
                for i in item_ids
            ]
            forbidden = [
                obj({"id": {"const": i}, "mentioned": {"enum": ["yes", "no"]}, "reason": TEXT}, ["id", "mentioned"])
                for i in forbidden_ids
            ]
            score = {"type": "integer", "minimum": 1, "maximum": 10}  # the prompt asks for a whole 1-10
            return obj(
                {"items": one_each(items), "forbidden": one_each(forbidden), "score": score, "reason": TEXT},
                ["items", "forbidden", "score"],
            )

    return Complete


def hints_prompt(case: Case, transcript: str) -> str:
    context = {
        **case.context,
        "transcript": transcript,
        "items": [i for i in case.items if i.level != "forbidden"],
        "forbidden": [i for i in case.items if i.level == "forbidden"],
    }
    return render(TEMPLATE.read_text(encoding="utf-8"), context, inline=True)


def hints_version() -> str:
    return version("ucl.hints", TEMPLATE.read_text(encoding="utf-8"))


async def judge_hints(
    door: Completer, model: ModelConfig, case: Case, transcript: str, *, metadata: dict[str, Any]
) -> Judgement:
    """Score one transcript against its item's guidance; a failure is a kind, never a 0."""
    points = tuple(i.id for i in case.items if i.level != "forbidden")
    forbidden = tuple(i.id for i in case.items if i.level == "forbidden")
    meta = {**metadata, "judge_kind": KIND, "transcript": transcript}
    asked = await ask_json(door, model, hints_prompt(case, transcript), hint_schema(points, forbidden), metadata=meta)
    answer, evidence, value = asked.value, {}, None
    if answer is not None:
        status = {x.id: CREDIT[x.status] for x in answer.items}
        mentioned = {x.id: x.mentioned == "yes" for x in answer.forbidden}
        value = hint_score(status, case.items, mentioned)
        hint_free = value is None
        if hint_free:
            value = (answer.score - 1) / 9
        evidence = {
            "status": {x.id: x.status for x in answer.items},
            "mentioned": mentioned,
            "score": answer.score,
            "reason": answer.reason,
            "hint_free": hint_free,
        }
    return JudgedBy.of(model, hints_version()).judgement(value, [asked], evidence)


async def judge_all_hints(
    door: Completer,
    model: ModelConfig,
    jobs: list[tuple[Case, str, dict[str, Any]]],
    on_done: Callable[..., None] | None = None,
) -> list[Judgement]:
    """(case, transcript, metadata) jobs concurrently; results in input order."""

    async def one(case: Case, transcript: str, meta: dict[str, Any]) -> Judgement:
        result = await judge_hints(door, model, case, transcript, metadata=meta)
        if on_done is not None:
            on_done()
        return result

    return list(await asyncio.gather(*(one(*job) for job in jobs)))

"""Rubric-item judge: one call scores a response against a list of rubric items (PLawBench style).

The answer is JSON with, per item, the points awarded and a short justification. Every item must be answered
once (else the answer is repaired, then a failure). Points outside [0, max] are clamped, not refused, and the
clamps are counted in the evidence: the judge did answer, only beyond the scale. The value is the share of the
available points awarded. Callers may pass their own template source; it gets `question`, `response`, `items`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from steps.judges.asking import ask_json
from steps.judges.prompts import render, template_source, version
from steps.judges.result import Judgement
from steps.llm import ModelConfig

KIND = "rubric"
TEMPLATE = "rubric.j2"


@dataclass(frozen=True)
class RubricItem:
    id: str
    text: str
    points: float
    key_phrases: tuple[str, ...] = ()  # read only by the proxy judge (not in the prompt, so not in the cache key)

    def __post_init__(self) -> None:
        if self.points <= 0:
            raise ValueError(f"rubric item {self.id} must be worth more than 0 points")


class ItemAward(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str
    awarded: float = Field(allow_inf_nan=False)
    justification: str = ""

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, value: Any) -> str:
        return str(value).strip().rstrip(".．、")


class RubricAnswer(BaseModel):
    items: list[ItemAward]


@cache
def rubric_schema(ids: tuple[str, ...]) -> type[RubricAnswer]:
    class ItemsAnswer(RubricAnswer):
        @model_validator(mode="after")
        def _complete(self) -> ItemsAnswer:
            got = [x.id for x in self.items]
            if sorted(got) != sorted(ids):
                raise PydanticCustomError(
                    "incomplete",
                    "answer each item exactly once: expected {expected}, got {got}",
                    {"expected": list(ids), "got": got},
                )
            return self

    return ItemsAnswer


def rubric_prompt(
    response: str, items: Sequence[RubricItem], *, question: str | None = None, template: str | None = None
) -> str:
    context = {"question": (question or "").strip(), "response": response.strip(), "items": list(items)}
    return render(template, context, inline=True) if template else render(TEMPLATE, context)


def rubric_version(items: Sequence[RubricItem], *, template: str | None = None, name: str = KIND) -> str:
    return version(name, template or template_source(TEMPLATE), [(i.id, i.text, i.points) for i in items])


async def judge_rubric(
    door: Any,
    model: ModelConfig,
    *,
    response: str,
    items: Sequence[RubricItem],
    question: str | None = None,
    template: str | None = None,
    name: str = KIND,
    metadata: dict[str, Any] | None = None,
) -> Judgement:
    """Score `response` against `items` in one call; value = awarded points / available points."""
    ids = tuple(i.id for i in items)
    if len(set(ids)) != len(ids) or not ids:
        raise ValueError("rubric items need distinct ids, and at least one item")
    meta = {
        **(metadata or {}),
        "judge_kind": KIND,
        "response": response,
        "items": [{"id": i.id, "text": i.text, "points": i.points, "key_phrases": list(i.key_phrases)} for i in items],
    }
    prompt = rubric_prompt(response, items, question=question, template=template)
    asked = await ask_json(door, model, prompt, rubric_schema(ids), metadata=meta)
    common = {
        "raw": asked.raw,
        "prompt_version": rubric_version(items, template=template, name=name),
        "judge_model": model.model,
        "proxy": model.is_scripted,
        "error": asked.error,
        "attempts": asked.attempts,
        "call_keys": asked.call_keys,
    }
    if asked.value is None:
        return Judgement(value=None, failure=asked.failure, **common)
    given = {a.id: a for a in asked.value.items}
    rows = []
    for item in items:
        answer = given[item.id]
        awarded = min(max(answer.awarded, 0.0), item.points)
        rows.append(
            {
                "id": item.id,
                "points": item.points,
                "given": answer.awarded,
                "awarded": awarded,
                "clamped": awarded != answer.awarded,
                "justification": answer.justification,
            }
        )
    total, available = sum(r["awarded"] for r in rows), sum(i.points for i in items)
    evidence = {"items": rows, "total": total, "max": available, "clamped": sum(r["clamped"] for r in rows)}
    return Judgement(value=total / available, failure=None, evidence=evidence, **common)

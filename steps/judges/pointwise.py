"""Pointwise judge: a candidate compared with a reference on a 0–10 scale (J1 I-2, II-2, III-2, III-5).

Our own Chinese prompt (`templates/pointwise.j2`) in the spirit of J1's comparative prompt (spec j1-envs
§6.3-c/d): cover every core point of the reference, ignore length and style. The optional `question` makes it
the open-ended-topic judge of I-2; `aspect` names what is compared (诉讼请求, 判决主文 …). The answer is JSON
`{"score": 0-10, "reason": "…"}`; the value is score / 10.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from steps.judges.asking import ask_json
from steps.judges.prompts import render, template_source, version
from steps.judges.result import JudgedBy, Judgement
from steps.llm import Completer, ModelConfig
from steps.llm.capabilities import TEXT, obj

TEMPLATE = "pointwise.j2"
KIND = "pointwise"


class PointwiseAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    score: float = Field(ge=0, le=10)
    reason: str

    @classmethod
    def wire_schema(cls) -> dict[str, Any]:
        """The score a whole number in 0-10 (the prompt asks for one; llama.cpp's grammar bounds integers only)."""
        return obj({"score": {"type": "integer", "minimum": 0, "maximum": 10}, "reason": TEXT})


@dataclass(frozen=True)
class Comparison:
    reference: str
    candidate: str
    question: str | None = None
    aspect: str | None = None


def pointwise_prompt(comparison: Comparison) -> str:
    return render(
        TEMPLATE,
        {
            "reference": comparison.reference.strip(),
            "candidate": comparison.candidate.strip(),
            "question": (comparison.question or "").strip(),
            "aspect": (comparison.aspect or "").strip(),
        },
    )


def pointwise_version() -> str:
    return version(KIND, template_source(TEMPLATE))


async def judge_pointwise(
    door: Completer, model: ModelConfig, comparison: Comparison, *, metadata: dict[str, Any] | None = None
) -> Judgement:
    """Score `comparison.candidate` against `comparison.reference`; a failure is a kind, never a 0."""
    context = {
        **(metadata or {}),
        "judge_kind": KIND,
        "reference": comparison.reference,
        "candidate": comparison.candidate,
    }
    asked = await ask_json(door, model, pointwise_prompt(comparison), PointwiseAnswer, metadata=context)
    answer = asked.value
    evidence = {"score": answer.score, "reason": answer.reason} if answer else {}
    return JudgedBy.of(model, pointwise_version()).judgement(answer.score / 10 if answer else None, [asked], evidence)


async def judge_pointwise_many(
    door: Completer,
    model: ModelConfig,
    comparisons: Sequence[Comparison],
    *,
    metadata: Sequence[dict[str, Any]] | None = None,
) -> list[Judgement]:
    """Many comparisons concurrently (the door bounds concurrency per endpoint); results in input order."""
    metas = list(metadata) if metadata is not None else [{} for _ in comparisons]
    if len(metas) != len(comparisons):
        raise ValueError("one metadata dict per comparison")
    pairs = zip(comparisons, metas, strict=True)
    return list(await asyncio.gather(*(judge_pointwise(door, model, c, metadata=m) for c, m in pairs)))

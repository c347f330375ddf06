"""Graded judge: one call scores one or several named criteria on a bounded scale (e.g. 1–10).

MASER/MILE asks for JSON with Chinese keys — `{"互动性": 8, "专业性": 7, "逻辑性": 8, "解释": "…"}` for an
interaction window, `{"分数": 6, "解释": "…"}` for a complaint section. The caller supplies the rendered prompt
(its templates live with the benchmark) and its version; this module asks, validates the keys and bounds
(one repair round), and returns one `Judgement` per criterion with value = (score − low) / (high − low), so
the lowest grade is 0 and the highest 1. The raw grade and the explanation stay in `evidence`. A failed call,
an unparsable answer or a grade outside the scale is a failure kind for every criterion, never a low grade. An
answer cut at max_tokens whose every grade came before the cut (MILE's paper judge: 50 tokens) is read by regex
(`grades_from_cut`), marked `cut_at_max_tokens` in its evidence and `truncated`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from steps.judges.asking import ask_json
from steps.judges.result import JudgedBy, Judgement
from steps.llm import Completer, ModelConfig
from steps.llm.reasoning import strip_reasoning


@dataclass(frozen=True)
class Scale:
    """The criteria a judge answer must grade, the key of its explanation, and the bounds of a grade."""

    keys: tuple[str, ...]
    reason_key: str = "解释"
    low: int = 1
    high: int = 10

    def normalise(self, grade: float) -> float:
        return (grade - self.low) / (self.high - self.low)


class Graded(BaseModel):
    """What every graded answer has: its explanation (under the scale's key); the grades are `g0`, `g1`, …"""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    reason: str = ""

    @classmethod
    def wire_schema(cls) -> dict[str, Any]:
        """pydantic's schema with every grade a whole number within its scale (constrained output): the prompts ask
        for whole grades, and llama.cpp's grammar bounds integers only. An answer is still read leniently: a grade
        in range with decimals (an unconstrained judge) is kept, one out of range is `out_of_range`, never clamped."""
        body = cls.model_json_schema()
        for prop in body.get("properties", {}).values():
            if prop.get("type") == "number":
                prop["type"] = "integer"
        return body


@cache
def answer_schema(scale: Scale) -> type[Graded]:
    """A pydantic model with one bounded number per criterion (JSON keys as given) and the explanation."""
    fields: dict[str, Any] = {
        f"g{i}": (float, Field(ge=scale.low, le=scale.high, alias=key)) for i, key in enumerate(scale.keys)
    }
    fields["reason"] = (str, Field(default="", alias=scale.reason_key))
    return create_model("GradedAnswer", __base__=Graded, **fields)


async def judge_graded(
    door: Completer,
    model: ModelConfig,
    prompt: str,
    scale: Scale,
    *,
    prompt_version: str,
    metadata: dict[str, Any] | None = None,
) -> dict[str, Judgement]:
    """Ask `model` to grade `prompt`; returns one judgement per key of `scale` (failures shared by all)."""
    schema = answer_schema(scale)
    asked = await ask_json(door, model, prompt, schema, metadata=metadata)
    grades = grades_from_cut(asked.raw, scale) if asked.value is None and asked.truncated else None
    cut = grades is not None
    if grades is not None:  # every grade written before the cap: read as the released code read them
        value = schema.model_validate({**dict(zip(scale.keys, grades, strict=True)), scale.reason_key: ""})
        asked = replace(asked, value=value, failure=None, error="")
    by, out = JudgedBy.of(model, prompt_version), {}
    for i, key in enumerate(scale.keys):
        grade = getattr(asked.value, f"g{i}") if asked.value is not None else None
        evidence = {"score": grade, "reason": asked.value.reason} if asked.value is not None else {}
        if cut:
            evidence["cut_at_max_tokens"] = True
        out[key] = by.judgement(scale.normalise(grade) if grade is not None else None, [asked], evidence)
    return out


def grades_from_cut(raw: str, scale: Scale) -> tuple[float, ...] | None:
    """The grades of an answer cut at max_tokens before its JSON closed (MILE's paper judge asks at most 50 tokens;
    our prompts put the grades before the explanation): the first `"<key>": <number>` of each key, as the released
    evaluation code read them by regex; None unless every key has a grade within the scale."""
    text = strip_reasoning(raw)
    grades = []
    for key in scale.keys:
        found = re.search(rf'"{re.escape(key)}"\s*:\s*(-?\d+(?:\.\d+)?)', text)
        if found is None or not scale.low <= float(found.group(1)) <= scale.high:
            return None
        grades.append(float(found.group(1)))
    return tuple(grades)

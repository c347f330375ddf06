"""Asking the judge for the Table 8 penalties of one consultation answer (opt-in; rules in `penalties`).

One call per answer, our own template (`steps/plawbench/templates/judge/plawbench_penalties.j2`). The answer is one
JSON object listing findings (type, points, the quoted text, a reason) and red flags (type, quoted text). It
is validated like every judge answer: a type outside the lists, points outside the type's range or a quote
that is not in the answer is out of range, a missing list is unparsable; an invalid answer is shown its error
and asked again (`repairs` times), then recorded as a judge failure, never scored 0. The offline proxy judge
(`scripted/judge`, kind `penalties`) reads the questions and the vague-probe cues from the call metadata.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from steps.judges.asking import Asked, ask_json
from steps.judges.prompts import render, template_source, version
from steps.judges.result import JudgedBy, JudgeFailure
from steps.llm import Completer, ModelConfig
from steps.llm.capabilities import TEXT, obj
from steps.plawbench.penalties import DIMENSIONS, PENALTY_TYPES, ZERO_TYPES, Finding, PenaltyTally, apply_penalties
from steps.plawbench.questions import split_questions

KIND = "penalties"
TEMPLATE = "plawbench_penalties.j2"
TEMPLATES = Path(__file__).parent / "templates" / "judge"
# what the proxy judge takes for a vague "are you hiding something" question (any question containing one)
VAGUE_CUES = (
    "隐瞒",
    "没告诉我",
    "没有告诉我",
    "没说的",
    "没有说的",
    "有所保留",
    "还有什么要补充",
    "还有什么没",
    "还有其他没",
    "还有没有什么没",
)


def _squash(text: str) -> str:
    return "".join(text.split())


class _Line(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: str
    quote: str = Field(min_length=1)
    reason: str = ""

    @field_validator("type", "quote", mode="before")
    @classmethod
    def _strip(cls, value: Any) -> Any:
        return value.strip() if isinstance(value, str) else value

    @field_validator("reason", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        return "" if value is None else str(value)


class FindingLine(_Line):
    points: float = Field(allow_inf_nan=False)


class PenaltyAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    findings: list[FindingLine]
    red_flags: list[_Line]


def penalty_schema(answer: str) -> type[PenaltyAnswer]:
    """The schema of the judge's answer about `answer`: known types, points within range, real quotes."""
    text = _squash(answer)

    class Checked(PenaltyAnswer):
        @model_validator(mode="after")
        def _bounded(self) -> Checked:
            bad = []
            for f in self.findings:
                t = PENALTY_TYPES.get(f.type)
                if t is None:
                    bad.append(f"findings: type {f.type!r} is not one of {sorted(PENALTY_TYPES)}")
                elif not t.low <= f.points <= t.high:
                    bad.append(f"findings: {f.type} costs {t.low:g} to {t.high:g} points, not {f.points:g}")
            bad += [
                f"red_flags: type {r.type!r} is not one of {sorted(ZERO_TYPES)}"
                for r in self.red_flags
                if r.type not in ZERO_TYPES
            ]
            bad += [
                f"quote {line.quote[:40]!r} is not in the answer (copy it word for word)"
                for line in [*self.findings, *self.red_flags]
                if _squash(line.quote) not in text
            ]
            if bad:
                raise PydanticCustomError("out_of_range", "values out of range: {bad}", {"bad": "; ".join(bad)})
            return self

        @classmethod
        def wire_schema(cls) -> dict[str, Any]:
            """Known types and points within the widest range (constrained output; each type's own range and
            the quotes are checked on the answer)."""
            low = min(t.low for t in PENALTY_TYPES.values())
            high = max(t.high for t in PENALTY_TYPES.values())
            quote = {"type": "string", "minLength": 1}
            finding = obj(
                {
                    "type": {"enum": sorted(PENALTY_TYPES)},
                    "points": {"type": "number", "minimum": low, "maximum": high},
                    "quote": quote,
                    "reason": TEXT,
                },
                ["type", "points", "quote"],
            )
            flag = obj({"type": {"enum": sorted(ZERO_TYPES)}, "quote": quote, "reason": TEXT}, ["type", "quote"])
            return obj({"findings": {"type": "array", "items": finding}, "red_flags": {"type": "array", "items": flag}})

    return Checked


def penalty_prompt(response: str, *, question: str = "") -> str:
    return render(
        TEMPLATE,
        {
            "question": question.strip(),
            "response": response.strip(),
            "dimensions": DIMENSIONS,
            "types": list(PENALTY_TYPES.values()),
            "zero_types": ZERO_TYPES,
        },
        folder=TEMPLATES,
    )


def penalty_version() -> str:
    types = [(t.code, t.dimension, t.low, t.high, t.cap, t.label) for t in PENALTY_TYPES.values()]
    return version(f"plawbench.{KIND}", template_source(TEMPLATE, TEMPLATES), types, ZERO_TYPES)


@dataclass(frozen=True)
class PenaltyJudgement:
    """The penalties of one answer: `tally` (with the base score) or a failure kind, never both."""

    tally: PenaltyTally | None
    failure: JudgeFailure | None
    raw: str
    prompt_version: str
    judge_model: str
    proxy: bool
    error: str = ""
    attempts: int = 0

    @classmethod
    def of(cls, by: JudgedBy, asked: Asked, tally: PenaltyTally | None) -> PenaltyJudgement:
        """The judgement of one asked question: its `tally`, or (no answer) the question's failure."""
        failure = asked.failure if tally is None else None
        return cls(tally, failure, asked.raw, by.prompt_version, by.model, by.proxy, asked.error, asked.attempts)

    def evidence(self) -> dict[str, Any]:
        out = {
            "prompt_version": self.prompt_version,
            "judge": self.judge_model,
            "attempts": self.attempts,
            "failure": self.failure.value if self.failure else None,
            "error": self.error,
            "raw": self.raw,
        }
        return out | (self.tally.evidence() if self.tally else {})


async def judge_penalties(
    door: Completer,
    model: ModelConfig,
    *,
    response: str,
    base: float,
    question: str = "",
    repairs: int = 1,
    metadata: dict[str, Any] | None = None,
) -> PenaltyJudgement:
    """Ask for the findings in `response` (the judged questions) and apply them to the rubric score `base`."""
    schema = penalty_schema(response)
    meta = {
        **(metadata or {}),
        "judge_kind": KIND,
        "response": response,
        "questions": split_questions(response),
        "vague_cues": list(VAGUE_CUES),
    }
    prompt = penalty_prompt(response, question=question)
    asked = await ask_json(door, model, prompt, schema, metadata=meta, repairs=repairs)
    by = JudgedBy.of(model, penalty_version())
    if asked.value is None:
        return PenaltyJudgement.of(by, asked, None)
    findings = [Finding(f.type, f.quote, f.points, f.reason) for f in asked.value.findings]
    findings += [Finding(r.type, r.quote, 0.0, r.reason) for r in asked.value.red_flags]
    return PenaltyJudgement.of(by, asked, apply_penalties(base, findings))

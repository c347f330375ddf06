"""Asking the environment model for the fields rules cannot read, validated field by field with repair rounds.

One call per case returns every field as JSON (`answers.py`). Each key is validated on its own, so one bad
field does not cost the others. Invalid or missing keys are shown to the model with their validation errors and
asked for again, up to `max_attempts` calls in all; what still fails is recorded as an `invalid` issue for that
field. A call that fails after the door's retries is a `call_failed` issue for every field still pending: never
an empty field without a reason.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from steps.j1.extract.answers import FIELDS, answer_model, mandatory, validate_field
from steps.j1.extract.inputs import CaseInput
from steps.j1.extract.issues import IssueRow, LLMIssue, Stage
from steps.j1.extract.prompts import build_prompt, repair_message
from steps.llm import Completer, ModelConfig
from steps.llm.capabilities import response_format
from steps.llm.structured import extract_json

PURPOSE = "extraction"


@dataclass
class LLMResult:
    """The validated fields of one case (absent when they failed), their issues, and how it went."""

    case_id: str
    model: str
    values: dict[str, Any] = field(default_factory=dict)
    issues: list[IssueRow] = field(default_factory=list)
    attempts: int = 0

    @property
    def status(self) -> str:
        """ok (every field valid), partial or failed (no field valid)."""
        failed = any(i.kind in (LLMIssue.CALL_FAILED, LLMIssue.INVALID) for i in self.issues)
        return "failed" if not self.values else "partial" if failed else "ok"


def _validate(kind: str, text: str, pending: list[str], values: dict[str, Any], raw: dict[str, Any]) -> dict[str, str]:
    """Validate the pending keys of an answer into `values`; returns the errors of those that failed."""
    try:
        answer = extract_json(text)
    except ValueError as e:  # json.JSONDecodeError is a ValueError
        return dict.fromkeys(pending, f"the answer is not a JSON object ({str(e)[:120]})")
    if not isinstance(answer, dict):
        return dict.fromkeys(pending, f"the answer is a JSON {type(answer).__name__}, not an object")
    errors = {}
    for name in pending:
        if name not in answer:
            errors[name] = "missing key"
            continue
        raw[name] = answer[name]
        try:
            values[name] = validate_field(kind, name, answer[name])
        except ValueError as e:
            errors[name] = str(e)
    return errors


async def extract_fields(door: Completer, model: ModelConfig, case: CaseInput, *, max_attempts: int = 2) -> LLMResult:
    """Ask `model` for the LLM fields of `case`; never raises for model errors."""
    prompt = build_prompt(case)
    result = LLMResult(case.case_id, model.model)
    pending = list(FIELDS[case.kind])
    raw: dict[str, Any] = {}
    messages = list(prompt.messages)
    errors: dict[str, str] = {}
    # a real model is asked for the whole answer's schema where its endpoint supports it (steps/llm/capabilities.py)
    constrained: dict[str, Any] = (
        {} if model.is_scripted else {"response_format": response_format(answer_model(case.kind))}
    )
    for attempt in range(1, max_attempts + 1):
        # a scripted answer is a function of the metadata, which the cache key does not cover: recompute it
        reply = await door.complete(
            model, messages, purpose=PURPOSE, metadata=prompt.metadata, fresh=model.is_scripted, **constrained
        )
        result.attempts = attempt
        if not reply.ok:
            detail = f"{reply.kind.value} after {reply.attempts} tries: {reply.message}"
            result.issues += [IssueRow(Stage.LLM, name, LLMIssue.CALL_FAILED, detail) for name in pending]
            return result
        errors = _validate(case.kind, reply.text, pending, result.values, raw)
        pending = list(errors)
        if not pending:
            break
        messages += [{"role": "assistant", "content": reply.text}, repair_message(errors)]
    result.issues += [
        IssueRow(
            Stage.LLM,
            name,
            LLMIssue.INVALID,
            f"after {result.attempts} attempts: {errors[name]}",
            llm_value=_shown(raw.get(name)),
        )
        for name in pending
    ]
    return result


def missing_mandatory(case: CaseInput, values: dict[str, Any], failed: set[str]) -> list[IssueRow]:
    """A `missing` issue for each mandatory field that is empty although the model answered it validly."""
    header = case.parsed.header
    return [
        IssueRow(Stage.LLM, name, LLMIssue.MISSING, "mandatory field is empty")
        for name in mandatory(case.kind, header.doc_type, str(header.procedure))
        if name not in failed and not values.get(name)
    ]


def _shown(value: Any) -> Any:
    """An invalid value as recorded: kept whole unless it is long, then its JSON cut to 500 characters."""
    text = json.dumps(value, ensure_ascii=False)
    return value if len(text) <= 500 else text[:500] + "…"


async def extract_all(
    door: Completer, model: ModelConfig, cases: list[CaseInput], *, max_attempts: int, on_done=None
) -> list[LLMResult]:
    """`extract_fields` for every case, concurrently (the door bounds calls per endpoint); results in input order."""

    async def one(case: CaseInput) -> LLMResult:
        result = await extract_fields(door, model, case, max_attempts=max_attempts)
        if on_done is not None:
            on_done(result)
        return result

    return list(await asyncio.gather(*(one(c) for c in cases)))

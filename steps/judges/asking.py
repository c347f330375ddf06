"""Asking a judge model for JSON: `steps.llm.structured.complete_json` plus the judge's failure kinds.

The answer is validated by a pydantic schema with bounds; an invalid answer is shown its error and asked
again once. What still fails is classified: the door gave up (call_failed), the answer holds values outside
their bounds or allowed set (out_of_range), or anything else (unparsable).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from steps.judges.result import JudgeFailure
from steps.llm import Completer, ModelConfig
from steps.llm.structured import complete_json, extract_json

T = TypeVar("T", bound=BaseModel)

# pydantic error types that mean "a value outside what is allowed", and our own for unknown labels
RANGE_ERRORS = frozenset(
    {"greater_than", "greater_than_equal", "less_than", "less_than_equal", "literal_error", "enum", "out_of_range"}
)
# complete_json's own message when the answers never validated (the door's PARSE failures say otherwise)
_INVALID_ANSWER = "invalid JSON answer"


@dataclass(frozen=True)
class Asked(Generic[T]):
    value: T | None
    failure: JudgeFailure | None
    error: str
    raw: str
    attempts: int
    call_keys: tuple[str, ...]
    truncated: bool = False  # the last answer was cut at max_tokens


def classify(raw: str, schema: type[BaseModel]) -> tuple[JudgeFailure, str]:
    """Why `raw` does not validate: out_of_range when every error is a bound or an allowed-set violation."""
    try:
        data = extract_json(raw)
    except ValueError as e:
        return JudgeFailure.UNPARSABLE, str(e)[:300]
    try:
        schema.model_validate(data)
    except ValidationError as e:
        errors = e.errors()
        kind = JudgeFailure.OUT_OF_RANGE if all(err["type"] in RANGE_ERRORS for err in errors) else None
        detail = "; ".join(_where(err) + err["msg"] for err in errors[:5])
        return kind or JudgeFailure.UNPARSABLE, detail
    return JudgeFailure.UNPARSABLE, "the answer validates now but did not when it was given"


def _where(error: Any) -> str:
    return f"{'.'.join(map(str, error['loc']))}: " if error["loc"] else ""


async def ask_json(
    door: Completer,
    model: ModelConfig,
    prompt: str,
    schema: type[T],
    *,
    purpose: str = "judge",
    metadata: dict[str, Any] | None = None,
    repairs: int = 1,
) -> Asked[T]:
    """One judge question as a single user message; `repairs` rounds on an invalid answer."""
    messages = [{"role": "user", "content": prompt}]
    result = await complete_json(door, model, messages, schema, purpose=purpose, metadata=metadata, repairs=repairs)
    if result.value is not None:
        return Asked(result.value, None, "", result.raw, result.attempts, result.call_keys, result.truncated)
    failure = result.failure
    if failure is not None and failure.message.startswith(_INVALID_ANSWER):
        kind, detail = classify(result.raw, schema)
        return Asked(None, kind, detail, result.raw, result.attempts, result.call_keys, result.truncated)
    message = f"{failure.kind.value}: {failure.message}" if failure else "no answer"
    return Asked(None, JudgeFailure.CALL_FAILED, message, result.raw, result.attempts, result.call_keys)

"""Asking a model for JSON that a pydantic schema validates, with one repair round on invalid answers.

Where the endpoint supports it (a model's `structured_output` setting, steps/llm/capabilities.py) the answer is
constrained to the schema's JSON form at decoding; elsewhere it is parsed leniently (fenced or bare, after a
reasoning trace) and an invalid answer gets one repair round, counted in `attempts`.

Used by the LLM judges, persona generation and extraction. An answer that still does not validate is a
`parse` failure carrying the raw text and the validation error: recorded and counted, never scored 0.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from steps.llm.capabilities import response_format
from steps.llm.completer import Completer
from steps.llm.config import ModelConfig
from steps.llm.reasoning import strip_reasoning
from steps.llm.results import CallFailure, FailureKind

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


@dataclass(frozen=True)
class Structured(Generic[T]):
    value: T | None
    failure: CallFailure | None
    raw: str
    attempts: int  # model calls made (1 + repairs)
    call_keys: tuple[str, ...] = ()
    truncated: bool = False  # the last answer (`raw`) was cut at max_tokens


def extract_json(text: str) -> Any:
    """The JSON object in a model answer: fenced or bare, after any reasoning trace."""
    text = strip_reasoning(text)
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1).strip()
    start, end = text.find("{"), text.rfind("}")
    if start == -1:
        raise ValueError("no JSON object in the answer")
    if end < start:  # small models run out of max_tokens mid-object
        raise ValueError("a JSON object starts but never closes (the answer was cut off)")
    return json.loads(text[start : end + 1])


def validate_answer(text: str, schema: type[T]) -> T:
    try:
        return schema.model_validate(extract_json(text))
    except (ValueError, ValidationError) as e:
        raise ValueError(_short(e)) from None


def _short(e: Exception) -> str:
    if isinstance(e, ValidationError):
        return "; ".join(f"{'.'.join(map(str, err['loc']))}: {err['msg']}" for err in e.errors()[:5])
    return str(e)[:300]


REPAIR = "你上一次的回答无法按要求解析：{error}。请只输出符合要求的 JSON，不要输出其他内容。"


async def complete_json(
    door: Completer,
    model: ModelConfig,
    messages: list[dict[str, str]],
    schema: type[T],
    *,
    purpose: str,
    metadata: dict[str, Any] | None = None,
    repairs: int = 1,
) -> Structured[T]:
    """Call `model` and validate its JSON answer; on failure, show it the error and ask again `repairs` times.

    A real model is asked for output constrained to `schema` (steps/llm/capabilities.py: the door sends it where
    the model's `structured_output` setting says so); a scripted one never is."""
    keys: list[str] = []
    history = list(messages)
    raw, error, cut = "", "", False
    cap = model.decoding.max_tokens
    constrained: dict[str, Any] = {} if model.is_scripted else {"response_format": response_format(schema, None, cap)}
    for attempt in range(1, repairs + 2):
        reply = await door.complete(model, history, purpose=purpose, metadata=metadata, **constrained)
        keys.append(reply.call_key)
        if not reply.ok:
            return Structured(None, reply, raw, attempt, tuple(keys))
        raw, cut = reply.text, reply.truncated
        try:
            return Structured(validate_answer(raw, schema), None, raw, attempt, tuple(keys), cut)
        except ValueError as e:
            error = str(e)
        history = [
            *history,
            {"role": "assistant", "content": raw},
            {"role": "user", "content": REPAIR.format(error=error)},
        ]
    failure = CallFailure(
        FailureKind.PARSE,
        f"invalid JSON answer after {repairs + 1} attempts: {error}",
        model.model,
        keys[-1],
        repairs + 1,
    )
    return Structured(None, failure, raw, repairs + 1, tuple(keys), cut)

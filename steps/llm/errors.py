"""Classifying litellm exceptions into failure kinds, and deciding whether and when to retry."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import litellm

from steps.llm.results import FailureKind
from steps.llm.secrets import redact

__all__ = ["Classified", "classify", "classify_reply", "redact"]

# What litellm says when a 200 reply could not be read as a completion. It wraps the JSON error into an
# APIError (hosted_vllm/...) or, through the OpenAI SDK (openai/...), into a 500 InternalServerError that
# the server never sent; these markers, and a JSONDecodeError anywhere in the chain, identify them.
_UNREADABLE_REPLY = (
    "Unable to get json response",
    "Empty or invalid response from LLM endpoint",
    "provider returned a response with no 'choices'",
    "provider returned 'choices' that is not a list",
    "Invalid response object",
)


@dataclass(frozen=True)
class Classified:
    kind: FailureKind
    retryable: bool
    retry_after_s: float | None
    message: str


def _retry_after(exc: Exception) -> float | None:
    headers = getattr(exc, "litellm_response_headers", None) or {}
    try:
        value = headers.get("retry-after") or headers.get("Retry-After")
    except AttributeError:
        return None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None  # an HTTP date; fall back to exponential backoff


def classify(exc: Exception) -> Classified:
    """Map an exception from litellm (or the transport under it) to a failure kind."""
    first_line = str(exc).strip().split("\n", 1)[0]
    message = redact(f"{type(exc).__name__}: {first_line}")[:500]
    # Order matters: several of these classes subclass one another.
    if isinstance(exc, litellm.ContentPolicyViolationError):
        return Classified(FailureKind.CONTENT_FILTER, False, None, message)
    if isinstance(exc, litellm.RateLimitError):
        return Classified(FailureKind.RATE_LIMIT, True, _retry_after(exc), message)
    if isinstance(exc, litellm.Timeout | TimeoutError):
        return Classified(FailureKind.TIMEOUT, True, None, message)
    status = getattr(exc, "status_code", None)
    # Some providers (hosted_vllm/...) raise a plain APIError that carries the 401/403 only as a status code.
    if isinstance(exc, litellm.AuthenticationError | litellm.PermissionDeniedError) or status in (401, 403):
        return Classified(FailureKind.AUTH, False, None, message)
    if isinstance(exc, litellm.BadRequestError | litellm.NotFoundError | litellm.UnprocessableEntityError):
        return Classified(FailureKind.BAD_REQUEST, False, None, message)
    if _unreadable_reply(exc):
        return Classified(FailureKind.PARSE, True, None, message)
    if isinstance(status, int) and 400 <= status < 500 and status not in (408, 409, 425, 429):
        return Classified(FailureKind.BAD_REQUEST, False, None, message)
    # 5xx, dropped connections (APIConnectionError, "Server disconnected") and anything unknown: transient.
    return Classified(FailureKind.SERVER, True, _retry_after(exc), message)


def _unreadable_reply(exc: BaseException) -> bool:
    """True if the server answered but its body was not a completion (not JSON, cut, HTML, wrong shape)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, json.JSONDecodeError) or (current is exc and isinstance(exc, ValueError)):
            return True
        if any(marker in str(current) for marker in _UNREADABLE_REPLY):
            return True
        current = current.__cause__ or current.__context__
    return False


def classify_reply(response: Any) -> Classified | None:
    """None if `response` carries an answer; else why it does not (null content is never an answer).

    An empty string is the model's own answer and passes. Null content is typed by `finish_reason`:
    `content_filter` (the provider refused; deterministic, not retried), `length` (max_tokens ran out before
    any answer, as with reasoning models; the same parameters would spend them the same way, so it is not
    retried: raise `decoding.max_tokens`), anything else `null_content` (retried).
    """
    choices = getattr(response, "choices", None)
    if not choices:
        return Classified(FailureKind.PARSE, True, None, "the reply has no choices")
    choice = choices[0]
    if choice.message is not None and choice.message.content is not None:
        return None
    finish_reason = getattr(choice, "finish_reason", None)
    if finish_reason == "content_filter":
        filtered = "the provider filtered the completion (finish_reason content_filter)"
        return Classified(FailureKind.CONTENT_FILTER, False, None, filtered)
    if finish_reason == "length":
        return Classified(
            FailureKind.TRUNCATED,
            False,
            None,
            "the reply has no content: max_tokens ran out before any answer (finish_reason length)",
        )
    return Classified(
        FailureKind.NULL_CONTENT, True, None, f"the reply has no content (finish_reason {json.dumps(finish_reason)})"
    )

"""Classifying litellm exceptions into failure kinds, and deciding whether and when to retry."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import litellm

from steps.llm.results import FailureKind


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
    if isinstance(exc, litellm.AuthenticationError | litellm.PermissionDeniedError):
        return Classified(FailureKind.AUTH, False, None, message)
    if isinstance(exc, litellm.BadRequestError | litellm.NotFoundError | litellm.UnprocessableEntityError):
        return Classified(FailureKind.BAD_REQUEST, False, None, message)
    if "Unable to get json response" in str(exc) or isinstance(exc, ValueError):
        return Classified(FailureKind.PARSE, True, None, message)
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and 400 <= status < 500 and status not in (408, 409, 425, 429):
        return Classified(FailureKind.BAD_REQUEST, False, None, message)
    # 5xx, dropped connections (APIConnectionError, "Server disconnected") and anything unknown: transient.
    return Classified(FailureKind.SERVER, True, _retry_after(exc), message)


_SECRET_NAME = re.compile(r"(API_KEY|_KEY|_TOKEN|_SECRET)$")


def redact(text: str) -> str:
    """Replace the value of every secret-looking environment variable in `text` by ***."""
    for name, value in os.environ.items():
        if value and len(value) >= 8 and _SECRET_NAME.search(name) and value in text:
            text = text.replace(value, "***")
    return text

"""Classifying litellm exceptions into failure kinds, and deciding whether and when to retry."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

import httpx
import litellm

from steps.llm.reasoning import split_reasoning
from steps.llm.results import FailureKind, rerun_note
from steps.llm.secrets import redact

__all__ = ["Classified", "classify", "classify_reply", "is_truncated", "redact"]

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
# What servers say of a request longer than the model's context, lower-cased (litellm maps most of them to
# ContextWindowExceededError; a provider it does not map, or a plain APIError, still says one of these)
_TOO_LONG = (
    "exceeds the available context size",  # llama.cpp
    "exceed_context_size_error",  # llama.cpp's error type
    "maximum context length",  # vLLM, OpenAI
    "context_length_exceeded",  # OpenAI's error code
    "context length exceeded",
    "longer than the model's context length",
    "exceeds the model's context",
    "context window exceeded",
    "prompt is too long",
    "input is too long",
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
    """Map an exception from litellm (or the transport under it) to a failure kind. A kind that is not retried says
    in its message that a rerun cannot fix it, and what to change (`rerun_note`)."""
    c = _classify(exc)
    if c.retryable:
        return c
    return replace(c, message=f"{c.message[:320]} ({rerun_note(c.kind)})")


def too_long(exc: BaseException) -> bool:
    """True for an error that says the request is longer than the model's context."""
    if isinstance(exc, litellm.ContextWindowExceededError):
        return True
    status = getattr(exc, "status_code", None)
    if status is not None and not (isinstance(status, int) and 400 <= status < 500):
        return False
    text = str(exc).lower()
    return any(marker in text for marker in _TOO_LONG)


def _classify(exc: Exception) -> Classified:
    first_line = str(exc).strip().split("\n", 1)[0]
    message = redact(f"{type(exc).__name__}: {first_line}")[:500]
    # Order matters: several of these classes subclass one another.
    if too_long(exc):
        return Classified(FailureKind.CONTEXT_EXCEEDED, False, None, message)
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
        if isinstance(current, json.JSONDecodeError | UnicodeDecodeError):  # not JSON, or not UTF-8 text
            return True
        if current is exc and isinstance(exc, ValueError):
            return True
        if any(marker in str(current) for marker in _UNREADABLE_REPLY):
            return True
        current = current.__cause__ or current.__context__
    return False


class CallTimedOut(TimeoutError):
    """The whole call (connecting, waiting and reading the reply) took longer than its `timeout_s`."""


def unreachable(exc: BaseException) -> bool:
    """True if the request never reached a server: the connection was refused, or could not be opened."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, httpx.ConnectError | ConnectionRefusedError):
            return True
        current = current.__cause__ or current.__context__
    return False


def with_endpoint(c: Classified, endpoint: str) -> Classified:
    """`c` with the address the call could not reach in its message (the OpenAI SDK says only "Connection error.").
    `endpoint` is a server address without credentials (`address`)."""
    return replace(c, message=f"{c.message} (cannot connect to {endpoint})")


def address(api_base: str) -> str:
    """`api_base` as a message may show it: scheme, host, port and path, never a user, password or query."""
    if "://" in api_base:
        try:
            return str(httpx.URL(api_base).copy_with(username=None, password=None, query=None, fragment=None))
        except httpx.InvalidURL:
            pass
    return api_base.rsplit("@", 1)[-1].split("?", 1)[0].split("#", 1)[0]  # not a URL: no "user:password@", no query


def classify_reply(response: Any) -> Classified | None:
    """None if `response` carries an answer; else why it does not (null content is never an answer).

    - `finish_reason: content_filter`: the provider filtered the completion, whatever text came with it ("" or a
      partial one): a `content_filter` failure (deterministic, not retried), never an answer.
    - null content: typed by `finish_reason`: `length` (max_tokens ran out before any answer, as with reasoning
      models; the same parameters would spend them the same way, so not retried: raise `decoding.max_tokens`),
      anything else `null_content` (retried).
    - `finish_reason: length` and no answer once the reasoning is removed (an unclosed `<think>…`, only a
      `<think>…</think>` block, or only `reasoning_content`; steps/llm/reasoning.py): `truncated`, as null content.

    Anything else is an answer; one cut at max_tokens is marked so (`is_truncated`). An empty string, or only
    reasoning, with any other finish is the model's own empty answer and passes: the door returns it with the text
    "" and the trace kept (outcome `empty_answer`, steps/llm/results.py), never as text to score.
    """
    choices = getattr(response, "choices", None)
    if not choices:
        return Classified(FailureKind.PARSE, True, None, "the reply has no choices")
    choice = choices[0]
    finish_reason = getattr(choice, "finish_reason", None)
    if finish_reason == "content_filter":
        filtered = "the provider filtered the completion (finish_reason content_filter)"
        return Classified(FailureKind.CONTENT_FILTER, False, None, filtered)
    message = choice.message
    content = None if message is None else message.content
    if content is None and finish_reason != "length":
        return Classified(
            FailureKind.NULL_CONTENT,
            True,
            None,
            f"the reply has no content (finish_reason {json.dumps(finish_reason)})",
        )
    if finish_reason == "length":
        split = split_reasoning(content, getattr(message, "reasoning_content", None))
        if content is None or not split.answer:
            what = "no content" if content is None else "no answer once its reasoning is removed"
            if split.cut_off:
                what = "no answer: it was cut off inside its reasoning (an unclosed <think>)"
            return Classified(
                FailureKind.TRUNCATED,
                False,
                None,
                f"the reply has {what}: max_tokens ran out before any answer (finish_reason length)",
            )
    return None


def is_truncated(response: Any) -> bool:
    """True for a reply cut at max_tokens (`finish_reason: length`): an answer, but perhaps not a whole one."""
    return getattr(response.choices[0], "finish_reason", None) == "length"

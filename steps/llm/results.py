"""What a model call returns: a completion or a typed failure, and its accounting record."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

from steps.llm.secrets import redact

if TYPE_CHECKING:
    from steps.llm.config import ModelConfig


class FailureKind(StrEnum):
    RATE_LIMIT = "rate_limit"
    SERVER = "server"  # 5xx and dropped connections
    TIMEOUT = "timeout"
    BAD_REQUEST = "bad_request"
    CONTEXT_EXCEEDED = "context_exceeded"  # the request is longer than the model's context (a 400 that says so)
    AUTH = "auth"
    CONTENT_FILTER = "content_filter"  # the provider refused: a content-policy error, finish_reason content_filter
    PARSE = "parse"  # the answer was not a readable completion (not JSON, cut, HTML, invalid UTF-8, no choices)
    TRUNCATED = "truncated"  # finish_reason length and no answer (null, or only reasoning): max_tokens ran out first
    NULL_CONTENT = "null_content"  # null content for any other reason
    BUDGET = "budget"  # not sent: llm.budget_usd was spent (a rerun with a higher budget sends it)


# the kinds a later attempt may not meet again: the door retries them, and a rerun asks again what still failed
TRANSIENT = frozenset(
    {FailureKind.RATE_LIMIT, FailureKind.SERVER, FailureKind.TIMEOUT, FailureKind.PARSE, FailureKind.NULL_CONTENT}
)
CONTEXT_REMEDY = (
    "a smaller max_tokens (decoding.max_tokens, eval's --max-tokens), a server with a larger context (llama.cpp "
    "--ctx-size, vLLM --max-model-len) or fewer, shorter items (--limit)"
)
# what to change for a kind that a rerun alone meets again (the same request gets the same answer)
REMEDY: dict[FailureKind, str] = {
    FailureKind.CONTEXT_EXCEEDED: f"the request is longer than the model's context; give {CONTEXT_REMEDY}",
    FailureKind.BAD_REQUEST: (
        "the server refused the request as it is (HTTP 4xx); check the model string, api_base and decoding "
        "(decoding.extra) against what the server accepts"
    ),
    FailureKind.AUTH: "the server refused the credentials; check the key api_key_env names and its access",
    FailureKind.CONTENT_FILTER: (
        "the provider's filter refuses the same request again; accept it (llm.max_failed_fraction) or use another model"
    ),
    FailureKind.TRUNCATED: "max_tokens ran out before any answer; raise decoding.max_tokens (eval's --max-tokens)",
    FailureKind.BUDGET: "llm.budget_usd was spent; raise it to send the rest",
}


def rerun_note(kind: FailureKind) -> str:
    """What a rerun does about a failure of `kind`: asks again (transient), or meets it again and what to change."""
    if kind in TRANSIENT:
        return "a rerun asks again"
    return f"a rerun cannot fix it: {REMEDY.get(kind, 'the same request fails the same way')}"


# The outcome kind of a reply that completed without an answer: the model stopped by itself and, once its reasoning
# trace is removed (steps/llm/reasoning.py), nothing is left. Not a failed call (the same request gets the same
# answer, and it is the model's), never text to score: a dialogue ends on it (EndReason.EMPTY_REPLY), a benchmark's
# table marks the row with this kind (docs/failures.md, "Reasoning and empty answers").
EMPTY_ANSWER = "empty_answer"


@dataclass(frozen=True)
class Completion:
    """A model's answer. `text` is the answer only: the door removes any reasoning trace (`steps.llm.reasoning.
    separate`) and keeps it in `reasoning` ("" when the reply held none)."""

    text: str
    model: str
    call_key: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    latency_s: float  # of the call that produced the text (stored with the cached response)
    attempts: int
    cache_hit: bool
    truncated: bool = False  # cut at max_tokens (finish_reason length): an answer, perhaps not a whole one
    reasoning: str = ""  # the reasoning trace removed from the answer (<think> blocks, the API's reasoning field)

    @property
    def empty_answer(self) -> bool:
        """True when nothing is left of the reply once its reasoning trace is removed (`EMPTY_ANSWER`)."""
        return not self.text.strip()

    @property
    def ok(self) -> Literal[True]:  # a Literal, so `if reply.ok:` narrows a Reply for the type checker
        return True


@dataclass(frozen=True)
class CallFailure:
    """A call that gave no answer. Its message is redacted on creation (see steps.llm.secrets.redact), so
    whoever writes it to a table, transcript or log cannot leak a key the door sent."""

    kind: FailureKind
    message: str
    model: str
    call_key: str
    attempts: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", redact(self.message))

    @property
    def ok(self) -> Literal[False]:
        return False


Reply = Completion | CallFailure


def outcome(reply: Reply) -> str | None:
    """A reply's outcome kind: its failure kind, `EMPTY_ANSWER`, or None for an answer."""
    if not reply.ok:
        return reply.kind.value
    return EMPTY_ANSWER if reply.empty_answer else None


def reasoning_of(reply: Reply) -> str | None:
    """The reasoning trace of a reply, for a table's nullable `reasoning` column (None: no trace, or no answer)."""
    return (reply.reasoning or None) if reply.ok else None


@dataclass(frozen=True)
class UsageRecord:
    """One row of accounting per call, hit or miss, success or failure. `cost_usd` is the answer's price whether
    or not the cache served it (the spend of a hit is 0: see `cache_hit`); latency, attempts and cache hits depend
    on what ran before and are kept out of the tracked usage tables (flows/kit/models.py)."""

    run_id: str
    purpose: str
    model_name: str
    model: str
    call_key: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    latency_s: float
    attempts: int
    cache_hit: bool
    failure_kind: str | None
    failure_message: str | None
    metadata: dict[str, Any] = field(default_factory=dict)
    truncated: bool = False  # the answer was cut at max_tokens (a failure never is: see FailureKind.TRUNCATED)


@dataclass(frozen=True)
class Request:
    """One call for `ModelDoor.complete_many`."""

    model: ModelConfig
    messages: list[dict[str, Any]]
    purpose: str
    metadata: dict[str, Any] = field(default_factory=dict)


PUBLIC_METADATA = ("instance_id", "scenario", "role", "task", "setting")


def public_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    """The part of a call's metadata that its accounting row keeps."""
    return {k: v for k, v in metadata.items() if k in PUBLIC_METADATA}

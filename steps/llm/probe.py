"""A one-message probe that checks every configured model answers (`jurisflow models check`), and the probe of
whether an endpoint constrains output to a JSON schema."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from steps.llm.capabilities import StructuredCheck
from steps.llm.config import ModelConfig
from steps.llm.reasoning import strip_reasoning
from steps.llm.results import Reply
from steps.llm.scripted import ScriptedRequest, register_policy

PROBE_SCENARIO = "probe"
PROBE_MESSAGES = [
    {"role": "system", "content": "你是一个连通性检查助手。"},
    {"role": "user", "content": "请只回复两个字：收到。"},
]


def _acknowledge(request: ScriptedRequest) -> str:
    return "收到"


for _model in ("oracle", "persona", "judge"):
    register_policy(_model, PROBE_SCENARIO, _acknowledge)


@dataclass(frozen=True)
class ProbeResult:
    role: str
    name: str
    model: str
    ok: bool
    detail: str  # the answer, or the failure kind and message
    latency_s: float
    attempts: int


def probe_result(role: str, model: ModelConfig, reply: Reply) -> ProbeResult:
    if reply.ok:
        return ProbeResult(role, model.name, model.model, True, reply.text[:60], reply.latency_s, reply.attempts)
    return ProbeResult(
        role, model.name, model.model, False, f"{reply.kind.value}: {reply.message}", 0.0, reply.attempts
    )


# The structured-output probe: the same request as the probe, which never mentions JSON, with a response_format
# whose only valid answer is {"ack": "收到"}. An endpoint that honours it answers that object; one that ignores it
# answers the plain text the prompt asks for; one that refuses it fails the call (400).
STRUCTURED_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"ack": {"type": "string", "enum": ["收到"]}},
    "required": ["ack"],
    "additionalProperties": False,
}


def structured_verdict(model: ModelConfig, reply: Reply) -> StructuredCheck:
    """`works` when the answer is the schema's object; else why not (refused: the failure; ignored: the text)."""
    endpoint = model.endpoint()
    if not reply.ok:
        return StructuredCheck(model.model, endpoint, False, f"refused ({reply.kind.value}: {reply.message[:120]})")
    try:
        answer = json.loads(strip_reasoning(reply.text))
    except ValueError:
        answer = None
    if isinstance(answer, dict) and answer.get("ack") == "收到" and set(answer) == {"ack"}:
        return StructuredCheck(model.model, endpoint, True, "works")
    return StructuredCheck(model.model, endpoint, False, f"ignored (answered {reply.text[:60]!r})")

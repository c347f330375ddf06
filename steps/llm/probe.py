"""A one-message probe that checks every configured model answers (`jurisflow models check`)."""

from __future__ import annotations

from dataclasses import dataclass

from steps.llm.config import ModelConfig
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

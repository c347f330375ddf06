from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

import steps.j1.eval.scripted  # noqa: F401  (registers the proxy judge, with J1's court kinds for the procedure tests)
from steps.llm import LLMSettings, ModelConfig, ModelDoor
from tests.fake_openai_server import FakeOpenAIServer


class Answers:
    """A reply function for the fake server: the given answers in order, the last one repeated."""

    def __init__(self, *answers: str | Callable[[dict[str, Any]], str]):
        self.answers = list(answers)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, body: dict[str, Any]) -> str:
        self.bodies.append(body)
        answer = self.answers[min(len(self.bodies), len(self.answers)) - 1]
        return answer(body) if callable(answer) else answer


@pytest.fixture
def answers():
    """Start a fake OpenAI-compatible server answering with `Answers(...)`; returns (server, answers)."""
    servers: list[FakeOpenAIServer] = []

    def start(*replies: str | Callable[[dict[str, Any]], str]) -> tuple[FakeOpenAIServer, Answers]:
        script = Answers(*replies)
        servers.append(FakeOpenAIServer(reply=script).start())
        return servers[-1], script

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def door(tmp_path) -> ModelDoor:
    settings = LLMSettings(
        backoff_base_s=0.01, backoff_max_s=0.05, timeout_s=2.0, max_attempts=2, cache_dir=str(tmp_path / "cache")
    )
    return ModelDoor(settings, run_id="judges")


def http_judge(server: FakeOpenAIServer) -> ModelConfig:
    return ModelConfig(name="judge", model="hosted_vllm/test-model", api_base=server.url)


PROXY = ModelConfig(name="proxy", model="scripted/judge")


def run(coro):
    return asyncio.run(coro)

"""Slow: the real local model behind `jurisflow serve local`, reached through the project's ModelDoor."""

from __future__ import annotations

import asyncio
import os

import pytest

from steps.llm import Completion, Decoding, LLMSettings, ModelConfig, ModelDoor
from steps.llm.local_server import LOCAL_KEY_ENV
from tests.real.realserver import key_env, serve_local

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def test_serve_local_answers_one_real_completion_through_the_door_and_stops_on_sigterm(tmp_path, monkeypatch):
    for name, value in key_env().items():
        monkeypatch.setenv(name, value)
    with serve_local() as server:
        assert any(line.strip() == f"model: openai/{server.alias}" for line in server.output)
        assert any(line.strip() == f"api_base: {server.api_base}" for line in server.output)
        assert os.environ[LOCAL_KEY_ENV] not in "\n".join(server.output), "a key value is never printed"
        model = ModelConfig(name="local", decoding=Decoding(max_tokens=24), **server.agent_entry())
        door = ModelDoor(LLMSettings(cache=False, timeout_s=120, max_attempts=2), run_id="real")
        messages = [{"role": "user", "content": "用一句话说明什么是合同。"}]
        reply = asyncio.run(door.complete(model, messages, purpose="agent"))
        assert isinstance(reply, Completion), reply
        assert reply.text.strip() and 0 < reply.completion_tokens <= 24 and reply.prompt_tokens > 5
        record = door.usage[-1]
        assert record.failure_kind is None and record.model == f"openai/{server.alias}" and not record.cache_hit

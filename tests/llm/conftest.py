from __future__ import annotations

import pytest

from steps.llm import LLMSettings, ModelConfig
from tests.fake_openai_server import FakeOpenAIServer


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        yield srv


@pytest.fixture
def fast_settings(tmp_path) -> LLMSettings:
    """Retries with tiny backoffs so fault tests run quickly; a short call timeout."""
    return LLMSettings(
        backoff_base_s=0.01, backoff_max_s=0.05, timeout_s=1.0, max_attempts=4, cache_dir=str(tmp_path / "cache")
    )


@pytest.fixture
def vllm_model(server) -> ModelConfig:
    return ModelConfig(name="local", model="hosted_vllm/test-model", api_base=server.url)

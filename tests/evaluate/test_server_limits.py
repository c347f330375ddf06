"""What `jurisflow eval` reads of the agent's server before it writes anything (issue 37, item 1): the context size and
parallel slots llama.cpp's `/props` reports, vLLM's `max_model_len`, nothing from a server that reports neither or does
not answer. Over real HTTP, against the test server."""

from __future__ import annotations

import socket
import time

from steps.llm.vllm import ServerLimits, server_limits
from tests.fake_openai_server import FakeOpenAIServer

LLAMACPP = {"default_generation_settings": {"n_ctx": 8192}, "total_slots": 2}


def test_llamacpp_reports_its_context_and_slots():
    with FakeOpenAIServer(models=("smollm2-135m",), owned_by="llamacpp", props=LLAMACPP) as server:
        found = server_limits(server.url)
    assert (found.context, found.slots) == (8192, 2)
    assert found.source == f"llama.cpp http://127.0.0.1:{server.port}/props"
    assert found.describe().startswith("context 8,192 tokens, 2 parallel slots (llama.cpp ")


def test_vllm_reports_the_context_of_the_model_asked_for():
    with FakeOpenAIServer(models=("Qwen3-8B",), owned_by="vllm", max_model_len=16384) as server:
        found = server_limits(server.url, "Qwen3-8B")
    assert (found.context, found.slots) == (16384, None)  # vLLM says nothing of its batch size
    assert "parallel slots not reported" in found.describe() and "max_model_len" in found.describe()


def test_a_server_that_reports_neither_gives_nones_and_says_why():
    with FakeOpenAIServer() as server:
        found = server_limits(server.url + "/")
    assert found == ServerLimits(None, None, found.source)
    assert "/props: HTTP 404" in found.source and "/v1/models: no max_model_len" in found.source
    assert found.describe().startswith("reports neither its context size nor its parallel slots")


def test_a_server_that_does_not_answer_costs_at_most_the_timeout():
    with socket.socket() as held:  # a port that accepts connections and never answers
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        started = time.monotonic()
        found = server_limits(f"http://127.0.0.1:{port}/v1", timeout_s=0.5)
    assert time.monotonic() - started < 5
    assert (found.context, found.slots) == (None, None) and "ReadTimeout" in found.source

"""The fault-injecting test server itself: its fault kinds, seeded random faults and a taken port."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

from tests.fake_openai_server import RANDOM_MIX, FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]


def post(server: FakeOpenAIServer, key: str = "sk-test") -> tuple[int, bytes]:
    body = json.dumps({"model": "test-model", "messages": [{"role": "user", "content": "hi"}]}).encode()
    request = urllib.request.Request(
        f"{server.url}/chat/completions",
        data=body,
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def test_a_taken_port_fails_at_once():
    with FakeOpenAIServer() as first:
        started = time.monotonic()
        with pytest.raises(OSError, match=f"cannot listen on 127.0.0.1:{first.port}"):
            FakeOpenAIServer().start(first.port)
        assert time.monotonic() - started < 5


def test_the_command_line_server_on_a_taken_port_exits_with_one_line():
    with FakeOpenAIServer() as first:
        done = subprocess.run(
            [sys.executable, "-m", "tests.fake_openai_server", "--port", str(first.port)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith(f"error: fake OpenAI server cannot listen on 127.0.0.1:{first.port}")
    assert "Traceback" not in done.stderr


def test_unknown_faults_are_refused_when_injected(server):
    with pytest.raises(ValueError, match="unknown fault"):
        server.inject(("418",))
    with pytest.raises(ValueError, match="takes 1 argument"):
        server.inject(("slow",))
    with pytest.raises(ValueError, match="within"):
        server.inject_random(1.5)


def test_auth_errors_echo_the_authorization_header(server):
    server.inject(("401",), None, ("403",))  # None: that request passes untouched
    assert [post(server, "sk-echo-me")[0] for _ in range(3)] == [401, 200, 403]
    assert server.faults_injected == {"401": 1, "403": 1}
    server.inject(("403",))
    status, body = post(server, "sk-echo-me")
    assert status == 403 and "Bearer sk-echo-me" in json.loads(body)["error"]["message"]


@pytest.mark.parametrize(
    ("fault", "content", "finish_reason"),
    [
        ("filtered", None, "content_filter"),
        ("filtered_text", "根据您的描述，这起案件", "content_filter"),
        ("filtered_empty", "", "content_filter"),
        ("null_length", None, "length"),
        ("null_stop", None, "stop"),
        ("empty_stop", "", "stop"),
        ("think_cut", "<think>用户问的是合同纠纷，先看诉讼时效，再看", "length"),
        ("think_only", "<think>用户问的是合同纠纷，先看诉讼时效。</think>", "length"),
        ("reasoning_only", "", "length"),
        ("cut", "echo: hi", "length"),
    ],
)
def test_answer_shaped_faults(server, fault, content, finish_reason):
    server.inject((fault,))
    status, body = post(server)
    choice = json.loads(body)["choices"][0]
    assert status == 200 and (choice["message"]["content"], choice["finish_reason"]) == (content, finish_reason)
    assert ("reasoning_content" in choice["message"]) == (fault == "reasoning_only")


def test_a_trickled_reply_comes_whole_but_slowly(server):
    server.inject(("trickle", 1.5))
    started = time.monotonic()
    status, body = post(server)
    assert status == 200 and json.loads(body)["choices"][0]["message"]["content"] == "echo: hi"
    assert time.monotonic() - started >= 1.4


def test_a_reply_that_is_not_utf8(server):
    server.inject(("bad_utf8",))
    status, body = post(server)
    assert status == 200
    with pytest.raises(UnicodeDecodeError):
        body.decode("utf-8")


def test_random_faults_follow_the_seed_and_are_counted():
    def faults(seed: int) -> tuple[list[int], Counter]:
        with FakeOpenAIServer() as server:
            mix = [f for f in RANDOM_MIX if f[0] not in ("slow", "drop")]
            server.inject_random(0.5, seed=seed, mix=mix)
            statuses = [post(server)[0] for _ in range(60)]
            return statuses, Counter(server.faults_injected)

    statuses, counted = faults(7)
    assert faults(7) == (statuses, counted)
    assert faults(8)[0] != statuses
    assert 15 <= sum(counted.values()) <= 45  # about half of 60
    assert sum(counted[k] for k in ("429", "500", "502", "503")) == sum(s != 200 for s in statuses)


@pytest.mark.parametrize("style", ["llama.cpp", "vllm"])
def test_a_small_context_is_reported_and_enforced_as_the_server_does(style):
    from steps.llm.vllm import server_limits

    with FakeOpenAIServer(context_size=4, context_style=style) as server:
        found = server_limits(server.url)
        status, body = post(server)  # "hi": 3 + 3 + len("user") + len("hi") = 12 tokens at one per character
    assert found.context == 4 and found.source.startswith("llama.cpp" if style == "llama.cpp" else "vLLM")
    assert status == 400 and server.faults_injected["context"] == 1
    error = json.loads(body)
    if style == "llama.cpp":
        assert error["error"]["message"] == "the request exceeds the available context size, try increasing it"
        assert (error["error"]["n_prompt_tokens"], error["error"]["n_ctx"]) == (12, 4)
    else:
        assert error["message"].startswith("This model's maximum context length is 4 tokens. However, you requested")

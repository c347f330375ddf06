"""What `jurisflow eval` reads of the agent's server before it writes anything (issue 37, item 1): the context size and
parallel slots llama.cpp's `/props` reports, vLLM's `max_model_len`, nothing from a server that reports neither or does
not answer; and the concurrency it then writes. Over real HTTP, against the test server."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
import yaml

from flows.evaluate import Settings, prepare, register
from flows.kit.config import ParamsError
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
    assert found.reachable  # it accepted the connection: slow, not down


BASE = """agents:
  oracle:
    model: scripted/oracle
runs:
  lawbench: [oracle]
  j1: [oracle]
  mile: [oracle]
  ucl: [oracle]
  plawbench: [oracle]
"""


def _params(tmp_path: Path) -> Path:
    path = tmp_path / "params.yaml"
    path.write_text(BASE, encoding="utf-8")
    return path


def test_the_slots_become_the_agents_concurrency_unless_given(tmp_path):
    path = _params(tmp_path)
    said: list[str] = []
    with FakeOpenAIServer(models=("smollm2-135m",), props=LLAMACPP) as server:
        settings = Settings(api_base=server.url, benchmarks=["lawbench"], max_tokens=256)
        found = prepare(path, "local", "openai/smollm2-135m", settings, ["lawbench"], said.append)
        given = prepare(path, "local", "openai/smollm2-135m", Settings(api_base=server.url, concurrency=1), [], print)
    assert found.concurrency == 2 and given.concurrency == 1
    assert said[0] == "agent local: openai/smollm2-135m"  # the roles first: a real agent, no stand-in mark
    assert said[-1] == (
        f"agent local's server {server.url}: context 8,192 tokens, 2 parallel slots (llama.cpp "
        f"http://127.0.0.1:{server.port}/props); concurrency 2 (the server's parallel slots)"
    )
    register(path, "local", "openai/smollm2-135m", found)
    entry = yaml.safe_load(path.read_text(encoding="utf-8"))["agents"]["local"]
    assert entry == {
        "model": "openai/smollm2-135m",
        "api_base": server.url,
        "benchmarks": ["lawbench"],
        "decoding": {"max_tokens": 256},
        "concurrency": 2,
    }


def test_no_max_tokens_gets_a_cap_and_one_the_context_cannot_hold_is_refused(tmp_path):
    path = _params(tmp_path)
    said: list[str] = []
    with FakeOpenAIServer(props=LLAMACPP) as server:
        capped = prepare(path, "local", "openai/test-model", Settings(api_base=server.url), [], said.append)
        with pytest.raises(ParamsError, match=r"max_tokens 8192 is not below the server's context of 8192 tokens"):
            prepare(path, "local", "openai/test-model", Settings(api_base=server.url, max_tokens=8192), [], print)
    assert capped.max_tokens == 1024  # no cap given: a reply could otherwise take the whole context
    assert said[-1].startswith("agent local: max_tokens 1,024 (without a cap a reply may run to the end of the 8,192")
    assert path.read_text(encoding="utf-8") == BASE


def test_a_server_without_slots_keeps_the_configured_bound_and_a_scripted_agent_is_not_probed(tmp_path):
    path = _params(tmp_path)
    said: list[str] = []
    with FakeOpenAIServer(owned_by="vllm", max_model_len=4096) as server:
        settings = prepare(path, "v", "hosted_vllm/test-model", Settings(api_base=server.url), [], said.append)
    assert settings.concurrency is None
    server_line = said[-2]
    assert server_line.endswith("concurrency 32 (llm.concurrency)") and "context 4,096 tokens" in server_line
    said.clear()
    prepare(path, "oracle", "scripted/oracle", Settings(), ["lawbench"], said.append)
    assert said == ["agent oracle: scripted/oracle (stand-in: numbers are not the paper's)"]


def test_a_server_that_is_down_stops_the_eval_before_anything_is_written(tmp_path):
    path = _params(tmp_path)
    with socket.socket() as free:  # a port nobody listens on
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    assert server_limits(url).reachable is False
    down = rf"agent local's server {url} does not answer \(.*ConnectError.*\): start it"
    with pytest.raises(ParamsError, match=down):
        prepare(path, "local", "openai/test-model", Settings(api_base=url), ["lawbench"], print)
    said: list[str] = []  # a dry run says so and goes on
    prepare(path, "local", "openai/test-model", Settings(api_base=url), ["lawbench"], said.append, dry=True)
    assert any(line.startswith(f"warning: agent local's server {url} does not answer") for line in said)
    assert path.read_text(encoding="utf-8") == BASE


def test_the_call_timeout_is_sized_to_the_servers_measured_speed(tmp_path, monkeypatch):
    from flows import calibrate
    from flows.evaluate import sized_timeout
    from steps.llm.calibration import Calibration, calibration_key

    monkeypatch.chdir(tmp_path)  # the calibration record lives in the project's .cache/
    path = _params(tmp_path)
    said: list[str] = []
    with FakeOpenAIServer(props=LLAMACPP) as server:
        model = "openai/test-model"
        given = Settings(api_base=server.url, max_tokens=1024, concurrency=2)
        dry = sized_timeout(path, "local", model, given, said.append, dry=True)
        assert dry.timeout_s is None and server.count == 0  # a dry run sends nothing
        assert (
            said[-1] == "agent local: the eval measures its speed first (three short calls) and sizes its call timeout"
        )
        # a slow server's record: 100 prompt and 10 generated tokens/s, 0.5 s a call
        slow = Calibration(model, server.url, 1.0, 0.5, 100.0, 10.0, 1.0, 3, "2026-11-29T00:00:00+00:00")
        calibrate.save([slow])
        sized = sized_timeout(path, "local", model, given, said.append, dry=False)
        # (0.5 + 7,168 / 100 + 1,024 / 10) s on one of 2 busy slots, x2, up to the next 10 s
        assert sized.timeout_s == 700.0 and server.count == 0
        assert said[-1].startswith(
            "agent local: timeout 700 s per call (a 1,024-token reply after a 7,168-token prompt"
        )
        # no record: three calls measure the server (answers at once: the floor, llm.timeout_s), and keep the record
        (tmp_path / ".cache/calibration.json").unlink()
        measured = sized_timeout(path, "local", model, given, said.append, dry=False)
        assert server.count == 3 and measured.timeout_s == 120.0
        assert calibration_key(model, server.url) in calibrate.load()
        kept = sized_timeout(path, "local", model, Settings(api_base=server.url, timeout_s=60.0), said.append, False)
        assert kept.timeout_s == 60.0 and server.count == 3  # --timeout: nothing measured, nothing sized

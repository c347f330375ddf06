"""`jurisflow serve vllm` and `serve check` against a stand-in `vllm` executable (the test server)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from steps.llm.vllm import ServeOptions, serve_command
from tests.fake_openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]
JURISFLOW = Path(sys.executable).parent / "jurisflow"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_command_has_the_vllm_flags():
    cmd = serve_command(ServeOptions(model="Qwen/Qwen3-32B", port=8123, tensor_parallel=4, max_model_len=8192))
    assert cmd == [
        "vllm",
        "serve",
        "Qwen/Qwen3-32B",
        "--host",
        "127.0.0.1",
        "--port",
        "8123",
        "--tensor-parallel-size",
        "4",
        "--max-model-len",
        "8192",
    ]


def test_serve_vllm_waits_for_the_server_and_prints_the_params(tmp_path):
    fake = tmp_path / "vllm"
    fake.write_text(
        textwrap.dedent(f"""\
        #!{sys.executable}
        import sys
        args = sys.argv[1:]
        assert args[0] == "serve"
        model, port = args[1], args[args.index("--port") + 1]
        assert args[args.index("--tensor-parallel-size") + 1] == "2"
        sys.path.insert(0, {str(ROOT)!r})
        sys.argv = ["fake", "--port", port, "--model", model]
        from tests.fake_openai_server import main
        main()
        """)
    )
    fake.chmod(0o755)
    port = _free_port()
    proc = subprocess.Popen(
        [
            str(JURISFLOW),
            "serve",
            "vllm",
            "Qwen/Qwen3-32B",
            "--port",
            str(port),
            "--tensor-parallel",
            "2",
            "--vllm-bin",
            str(fake),
            "--ready-timeout",
            "60",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    lines: list[str] = []
    deadline = time.time() + 90
    try:
        while time.time() < deadline:
            line = proc.stdout.readline()
            lines.append(line)
            if "serving until interrupted" in line or proc.poll() is not None:
                break
    finally:
        proc.terminate()  # SIGTERM: the command stops the server it started
        proc.wait(30)
    out = "".join(lines)
    time.sleep(0.5)
    leftover = subprocess.run(["pgrep", "-f", "--", f"--port {port}"], capture_output=True, text=True).stdout
    assert leftover.strip() == "", "the vllm server outlived `jurisflow serve vllm`"
    assert f"ready: litellm model string hosted_vllm/Qwen/Qwen3-32B, api_base http://127.0.0.1:{port}/v1" in out
    assert f"model: hosted_vllm/Qwen/Qwen3-32B\n    api_base: http://127.0.0.1:{port}/v1" in out


def test_serve_vllm_without_vllm_says_how_to_install(tmp_path):
    """The missing executable is reported whatever the port: CI found 8000 taken, which hid it behind 'in use'."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        command = [str(JURISFLOW), "serve", "vllm", "m", "--vllm-bin", str(tmp_path / "missing"), "--port", str(port)]
        done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 1 and "pip install -e '.[vllm]'" in done.stderr
    assert "in use" not in done.stderr


def test_serve_check_lists_a_running_vllm_server():
    with FakeOpenAIServer(models=("Qwen3-8B", "Qwen3-32B"), owned_by="vllm") as server:
        done = subprocess.run([str(JURISFLOW), "serve", "check", server.url], capture_output=True, text=True)
    assert done.returncode == 0
    assert "server: vllm, 2 model(s)" in done.stdout
    assert f"hosted_vllm/Qwen3-8B  api_base {server.url}" in done.stdout
    assert f"hosted_vllm/Qwen3-32B  api_base {server.url}" in done.stdout
    assert f"model: hosted_vllm/Qwen3-8B\n    api_base: {server.url}" in done.stdout


@pytest.mark.parametrize(
    ("owned_by", "props", "kind"),
    [
        ("llamacpp", None, "llama.cpp"),  # llama.cpp's /v1/models
        (None, {"default_generation_settings": {"n_ctx": 8192}, "total_slots": 2}, "llama.cpp"),  # only /props
        ("organization-owner", None, "openai-compatible"),  # anything else that speaks the OpenAI API
    ],
)
def test_serve_check_suggests_openai_for_servers_other_than_vllm(owned_by, props, kind):
    with FakeOpenAIServer(models=("smollm2-135m",), owned_by=owned_by, props=props) as server:
        done = subprocess.run([str(JURISFLOW), "serve", "check", server.url], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"server: {kind}, 1 model(s)" in done.stdout
    assert f"openai/smollm2-135m  api_base {server.url}" in done.stdout
    assert f"model: openai/smollm2-135m\n    api_base: {server.url}" in done.stdout
    assert "hosted_vllm" not in done.stdout


def test_serve_vllm_help_keeps_the_extra_name():
    done = subprocess.run(
        [str(JURISFLOW), "serve", "vllm", "--help"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert done.returncode == 0
    assert "pip install -e '.[vllm]'" in done.stdout


def test_serve_vllm_on_a_taken_port_stops_at_once(tmp_path):
    vllm = tmp_path / "vllm"  # an executable that would leave a mark if it were started
    vllm.write_text(f"#!/bin/sh\ntouch {tmp_path / 'started'}\n")
    vllm.chmod(0o755)
    with FakeOpenAIServer(owned_by="vllm") as other:
        done = subprocess.run(
            [str(JURISFLOW), "serve", "vllm", "m", "--port", str(other.port), "--vllm-bin", str(vllm)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert other.count == 0
    assert done.returncode == 1
    assert f"127.0.0.1:{other.port} is already in use" in done.stderr and "ready" not in done.stdout
    assert not (tmp_path / "started").exists()


def test_serve_check_reports_an_unreachable_server():
    done = subprocess.run([str(JURISFLOW), "serve", "check", "http://127.0.0.1:9/v1"], capture_output=True, text=True)
    assert done.returncode == 1 and "did not answer" in done.stderr

"""`jurisflow models check` end to end, and no API key in anything the run writes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from steps.llm.secrets import NO_KEY
from tests.fake_openai_server import FakeOpenAIServer

pytestmark = pytest.mark.slow  # runs stages end to end: handed out before the quick modules

ROOT = Path(__file__).resolve().parents[2]
SECRET = "sk-jurisflow-dummy-0123456789abcdefXYZ"


def _params(server_url: str) -> str:
    return f"""
agents:
  oracle: {{model: scripted/oracle}}
  gpt4o: {{model: openai/gpt-4o-2024-11-20, api_base: "{server_url}", api_key_env: OPENAI_API_KEY}}
environment: {{model: scripted/persona}}
judge: {{model: hosted_vllm/test-model, api_base: "{server_url}"}}
llm: {{cache_dir: .cache/llm, max_attempts: 2, backoff_base_s: 0.01}}
"""


def test_models_check_probes_every_role_and_writes_no_key(tmp_path):
    env = {**os.environ, "OPENAI_API_KEY": SECRET, "PYTHONPATH": str(ROOT), "PREFECT_HOME": str(tmp_path / "prefect")}
    with FakeOpenAIServer() as server:
        (tmp_path / "params.yaml").write_text(_params(server.url), encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "flows.cli", "models", "check", "--usage-out", "usage.parquet"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        assert "models check: 5 models answered, 0 failed" in done.stderr.replace("\n", "")
        # the echo server ignores response_format: each real endpoint is recorded as not honouring it
        said = done.stderr.replace("\n", "")
        assert f"structured output hosted_vllm/test-model @ {server.url}: ignored" in said
        record = json.loads((tmp_path / ".cache/llm/structured_output.json").read_text(encoding="utf-8"))
        assert {v["model"]: v["works"] for v in record.values()} == {
            "openai/gpt-4o-2024-11-20": False,
            "hosted_vllm/test-model": False,
        }
        assert sum("response_format" in body for body in server.requests) == 2  # one probe per real endpoint
        sent = zip(server.requests, server.headers_seen, strict=True)
        keys = {(body["model"], h.get("Authorization")) for body, h in sent}
        # the key goes to the agent that names its variable; the keyless local judge gets no real key
        assert keys == {("gpt-4o-2024-11-20", f"Bearer {SECRET}"), ("test-model", f"Bearer {NO_KEY}")}
    usage = pd.read_parquet(tmp_path / "usage.parquet")
    assert sorted(usage.model_name) == ["environment", "gpt4o", "judge", "oracle", "reference"]  # + UCL's reference
    assert set(usage.purpose) == {"probe"} and usage.failure_kind.isna().all()
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.suffix == ".sqlite" for p in written)
    assert not (tmp_path / "prefect").exists()  # a check is no Prefect flow: no server, no run records
    leaks = [str(p) for p in written if SECRET.encode() in p.read_bytes()]
    assert leaks == []
    assert SECRET not in done.stdout + done.stderr


def test_models_check_fails_when_a_model_does_not_answer(tmp_path):
    env = {**os.environ, "OPENAI_API_KEY": SECRET, "PYTHONPATH": str(ROOT), "PREFECT_HOME": str(tmp_path / "prefect")}
    (tmp_path / "params.yaml").write_text(_params("http://127.0.0.1:9/v1"), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "flows.cli", "models", "check"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1
    err = done.stderr.replace("\n", "")
    assert "2 of 5 models did not answer" in err and "gpt4o (server" in err


def test_models_check_names_an_unset_key_variable_before_any_call(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    env |= {"PYTHONPATH": str(ROOT), "PREFECT_HOME": str(tmp_path / "prefect")}
    with FakeOpenAIServer() as server:
        (tmp_path / "params.yaml").write_text(_params(server.url), encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "flows.cli", "models", "check"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert server.count == 0
    assert done.returncode == 1
    assert "model 'gpt4o': api_key_env names OPENAI_API_KEY, which is not set" in done.stderr.replace("\n", "")
    assert "Traceback" not in done.stderr

"""`python -m flows.pipeline` (make run): dvc repro with every stage reporting to one Prefect server it starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.slow  # runs stages end to end: handed out before the quick modules

STAGE = """stages:
  where:
    cmd: python -c "import os; open('api.txt', 'w').write(os.environ.get('PREFECT_API_URL', ''))"
    outs:
      - api.txt
"""


def test_stages_see_one_server_that_is_gone_afterwards(tmp_path):
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PREFECT_HOME": str(tmp_path / "home")}
    env.pop("PREFECT_API_URL", None)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run([str(bin_dir / "dvc"), "init", "-q"], cwd=tmp_path, check=True, env=env)
    (tmp_path / "dvc.yaml").write_text(STAGE, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "flows.pipeline"],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    url = (tmp_path / "api.txt").read_text(encoding="utf-8")
    assert url.startswith("http://127.0.0.1:") and url.endswith("/api")
    assert f"Prefect server for this run: {url.removesuffix('/api')}" in done.stderr
    try:
        httpx.get(f"{url}/health", timeout=2)
        still_up = True
    except httpx.HTTPError:
        still_up = False
    assert not still_up


def test_a_server_already_named_is_used_as_it_is(tmp_path):
    bin_dir = Path(sys.executable).parent
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PREFECT_API_URL": "http://127.0.0.1:9/api",
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
    }
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run([str(bin_dir / "dvc"), "init", "-q"], cwd=tmp_path, check=True, env=env)
    (tmp_path / "dvc.yaml").write_text(STAGE, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "flows.pipeline"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "api.txt").read_text(encoding="utf-8") == "http://127.0.0.1:9/api"
    assert "Prefect server for this run" not in done.stderr

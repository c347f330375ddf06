"""`python -m flows.pipeline` (make run): dvc repro with every stage reporting to one Prefect server: the one
configured (PREFECT_API_URL, or the project's `jurisflow ui`), whose address it prints and which outlives the run,
else one it starts in the project's Prefect home and stops. `jurisflow ui` starts, answers and stops."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

# slow: runs stages end to end (handed out before the quick modules); prefect_on: what Prefect records is under test
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("prefect_on")]

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
    assert f"Prefect: a server of this run's own at {url.removesuffix('/api')}, stopped when it ends" in done.stderr
    assert (tmp_path / ".cache/prefect/prefect.db").is_file()  # the project's Prefect home: `jurisflow ui` shows them
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
    assert "server of this run's own" not in done.stderr
    # its address before the run and after it (the server outlives the run)
    assert done.stderr.count(f"Prefect UI: http://127.0.0.1:9 (this project's runs: tag project:{tmp_path.name})") == 1
    assert (
        f"Prefect UI, the runs stay there: http://127.0.0.1:9 (this project's runs: tag project:{tmp_path.name})"
        in (done.stderr)
    )


def _up(url: str) -> bool:
    try:
        return httpx.get(f"{url}/health", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def test_jurisflow_ui_serves_the_project_from_its_own_home_outlives_make_run_and_stops(tmp_path):
    bin_dir = Path(sys.executable).parent
    project = tmp_path / "clone"
    project.mkdir()
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
        "PREFECT_HOME": str(tmp_path / "elsewhere"),  # not the one the project's server uses
    }
    env.pop("PREFECT_API_URL", None)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run([str(bin_dir / "dvc"), "init", "-q"], cwd=project, check=True, env=env)
    (project / "dvc.yaml").write_text(STAGE, encoding="utf-8")

    def jurisflow(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(bin_dir / "jurisflow"), "ui", *args], cwd=project, env=env, capture_output=True, text=True, timeout=300
        )

    with socket.socket() as s:  # a free port: 4200, the default, may be another test's or another engineer's
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    started = jurisflow("--port", port)
    try:
        assert started.returncode == 0, started.stderr
        state = json.loads((project / ".cache/prefect/ui.json").read_text(encoding="utf-8"))
        url, home = state["api_url"], state["home"]
        assert home == str((project / ".cache/prefect").resolve())
        assert f"Prefect UI: {url.removesuffix('/api')}  (started; state in {home};" in started.stdout
        assert _up(url)
        settings = httpx.get(f"{url}/admin/settings", timeout=30).json()
        assert Path(settings["home"]) == Path(home)  # the project's own Prefect home, whatever PREFECT_HOME says

        again = jurisflow()
        assert again.returncode == 0 and f"Prefect UI: {url.removesuffix('/api')}  (runs;" in again.stdout

        run = subprocess.run(
            [sys.executable, "-m", "flows.pipeline"], cwd=project, env=env, capture_output=True, text=True, timeout=600
        )
        assert run.returncode == 0, run.stderr[-2000:]
        assert (project / "api.txt").read_text(encoding="utf-8") == url  # the stages reported to it
        assert f"Prefect UI, the runs stay there: {url.removesuffix('/api')}" in run.stderr
        assert _up(url)  # the address stays valid after the run
    finally:
        stopped = jurisflow("--stop")
    assert stopped.returncode == 0 and f"stopped the Prefect server at {url.removesuffix('/api')}" in stopped.stdout
    assert not _up(url) and not (project / ".cache/prefect/ui.json").exists()

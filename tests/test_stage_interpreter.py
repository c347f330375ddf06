"""Stage commands (`python -m flows.<stage>`) run with the project's interpreter whatever the PATH."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.helpers import copy_project

VENV = Path(sys.prefix)


def _bare_python(tmp_path: Path) -> Path:
    """A bin folder whose `python` is the base interpreter, without the project's dependencies."""
    base = Path(getattr(sys, "_base_executable", sys.executable))
    probe = subprocess.run([str(base), "-c", "import pandas"], capture_output=True)
    if probe.returncode == 0:
        pytest.skip(f"{base} has pandas: it cannot stand for an interpreter without the project's dependencies")
    bin_dir = tmp_path / "bare-bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(base)
    return bin_dir


@pytest.mark.slow
def test_dvc_repro_of_a_stage_works_with_a_path_that_lacks_the_venv(tmp_path, mirror, prefect_api):
    project = tmp_path / "jurisflow"
    copy_project(project, {})
    (project / ".venv").symlink_to(VENV)  # the copy's own .venv, as `make install` would leave it
    path = os.pathsep.join([str(_bare_python(tmp_path)), "/usr/bin", "/bin"])  # `python` lacks pandas; no .venv/bin
    env = {**os.environ, "PATH": path, "JURISFLOW_MIRROR": str(mirror), "PREFECT_API_URL": prefect_api}
    env.pop("VIRTUAL_ENV", None)
    done = subprocess.run(
        [str(project / ".venv/bin/dvc"), "repro", "ingest"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "No module named" not in done.stdout + done.stderr
    assert (project / "data/interim/lawbench_items.parquet").is_file()
    assert "ingest" in (project / "dvc.lock").read_text(encoding="utf-8")


def _flows_copy(tmp_path: Path, with_venv: bool) -> Path:
    project = tmp_path / "jurisflow"
    shutil.copytree(ROOT / "flows", project / "flows", ignore=shutil.ignore_patterns("__pycache__"))
    if with_venv:
        (project / ".venv").symlink_to(VENV)
    return project


def _bare_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("JURISFLOW_REEXEC", "PYTHONPATH", "VIRTUAL_ENV")}


def test_a_bare_python_runs_the_command_again_with_the_project_venv(tmp_path):
    project = _flows_copy(tmp_path, with_venv=True)
    bare = _bare_python(tmp_path) / "python"
    done = subprocess.run(
        [str(bare), "-m", "flows.cli", "--help"],
        cwd=project,
        env=_bare_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "jurisflow: Chinese legal LLM benchmarks" in done.stdout


def test_a_bare_python_without_a_venv_stops_with_one_line(tmp_path):
    project = _flows_copy(tmp_path, with_venv=False)
    bare = _bare_python(tmp_path) / "python"
    done = subprocess.run(
        [str(bare), "-m", "flows.run", "ingest"],
        cwd=project,
        env=_bare_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stderr.strip().startswith("error: ") and "lacks jurisflow's dependencies" in done.stderr
    assert "make install" in done.stderr and "Traceback" not in done.stderr

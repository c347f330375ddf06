"""`dvc repro` on a copy of the project: runs every stage, leaves `dvc status` clean, then does no work."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

# Three `dvc repro` runs of the whole pipeline: on a loaded 2-core machine this outlasts the suite's 900 s limit.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(2400)]

# The copy runs every stage on small samples: this test checks the pipeline's wiring (every stage runs,
# `dvc status` is clean, a second repro does nothing), not the sizes. Each stage with a sample-size
# parameter adds its small value here.
SMALL = {
    "lawbench": {"limit": 3},
    "extract": {"limit": 20},
    "instances": {"sizes": {"KQ": 2, "LC": 2, "CD": 2, "DD": 2, "CI": 2, "CR": 2}},
    "ucl": {"limit": 2},
    "mile": {"sample": 3},
    "plawbench": {"limit": 1},
}


def _copy_project(dest: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split("\n")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file() and not rel.startswith(("data/", ".venv/")):
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    params = yaml.safe_load((dest / "params.yaml").read_text(encoding="utf-8"))
    for section, values in SMALL.items():
        params[section] = {**params.get(section, {}), **values}
    (dest / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True, sort_keys=False), encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=dest, check=True)


def _dvc(args: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    dvc = Path(sys.executable).parent / "dvc"
    return subprocess.run([str(dvc), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)


def test_repro_then_status_clean_then_nothing_to_do(tmp_path, mirror):
    project = tmp_path / "jurisflow"
    _copy_project(project)
    env = {
        **os.environ,
        "JURISFLOW_MIRROR": str(mirror),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    first = _dvc(["repro"], project, env)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    report = (project / "reports/data.md").read_text(encoding="utf-8")
    assert "| mile | 693 |" in report and "| judgments_civil | 808 |" in report
    committed = (ROOT / "reports/data.md").read_text(encoding="utf-8")
    # The data sections must match the committed card; the model usage table depends on the sample sizes.
    assert report.split("## Model usage")[0] == committed.split("## Model usage")[0], "reports/data.md is stale"
    assert "## Model usage" in report and "scripted/oracle" in report.split("## Model usage")[1]
    for name in ("lawbench_zero_shot.md", "lawbench_one_shot.md", "lawbench.csv", "extraction.md",
                 "plawbench.md", "plawbench.csv", "plawbench_rubrics.md", "ucl.md", "ucl.csv", "mile.md", "mile.csv",
                 "j1.md", "j1.csv"):
        assert (project / "reports" / name).is_file(), name
    status = _dvc(["status"], project, env)
    assert status.returncode == 0 and "up to date" in status.stdout, status.stdout
    second = _dvc(["repro"], project, env)
    assert second.returncode == 0
    assert "Running stage" not in second.stdout and "didn't change, skipping" in second.stdout
    # J1-EVAL: the judge and aggregate stages forced to run again on the warm response cache write the same bytes
    j1 = [project / "data/runs" / a / "scores.parquet" for a in ("oracle", "null")]
    j1 += [project / "reports/j1.md", project / "reports/j1.csv"]
    before = [p.read_bytes() for p in j1]
    forced = _dvc(["repro", "--force", "--single-item", "judge@oracle", "judge@null", "aggregate"], project, env)
    assert forced.returncode == 0 and forced.stdout.count("Running stage") == 3, forced.stdout[-3000:]
    assert [p.read_bytes() for p in j1] == before

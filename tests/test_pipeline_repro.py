"""`dvc repro` on a copy of the project: runs every stage, leaves `dvc status` clean, then does no work. The first
run is the session's small run (the `small` fixture, which other tests reuse); this test checks it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from steps.reports.html.pages import PAGES
from tests.conftest import ROOT
from tests.helpers import SmallRun, repro
from tests.html_data import DIALOGUE_PAGES, index_counts, page_dialogues

# The session's whole-pipeline run (when this test is the first to use it), a no-op one and four stages forced: on a
# loaded 2-core machine this outlasts the suite's 900 s limit.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(2400)]


def _dvc(args: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    dvc = Path(sys.executable).parent / "dvc"
    return subprocess.run([str(dvc), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)


def test_repro_then_status_clean_then_nothing_to_do(small: SmallRun):
    project, env = small.project, small.env
    small.finished()
    assert small.repro.stdout.count("Running stage") > 20
    report = (project / "reports/data.md").read_text(encoding="utf-8")
    assert "| mile | 693 |" in report and "| judgments_civil | 808 |" in report
    committed = (ROOT / "reports/data.md").read_text(encoding="utf-8")
    # The data sections must match the committed card; the model usage table depends on the sample sizes.
    assert report.split("## Model usage")[0] == committed.split("## Model usage")[0], "reports/data.md is stale"
    assert "## Model usage" in report and "scripted/oracle" in report.split("## Model usage")[1]
    pages = [f"{p}.html" for p in PAGES]
    for name in (
        "lawbench_zero_shot.md",
        "lawbench_one_shot.md",
        "lawbench.csv",
        "extraction.md",
        "plawbench.md",
        "plawbench.csv",
        "plawbench_rubrics.md",
        "ucl.md",
        "ucl.csv",
        "mile.md",
        "mile.csv",
        "j1.md",
        "j1.csv",
        *(f"html/{p}" for p in pages),
    ):
        assert (project / "reports" / name).is_file(), name
    # The HTML report (a DVC output, not in git): every page is small on these samples, and every dialogue the
    # index counts is embedded in its page as JSON that parses
    html = project / "reports/html"
    assert {p.name: p.stat().st_size < 2**20 for p in html.glob("*.html")} == dict.fromkeys(pages, True)
    counts = index_counts((html / "index.html").read_text(encoding="utf-8"))
    for bench in DIALOGUE_PAGES:
        records = page_dialogues((html / f"{bench}.html").read_text(encoding="utf-8"))
        agents = {name for name, agent in small.agents.items() if bench in agent.get("benchmarks", [bench])}
        assert len(records) == counts[bench][1] > 0 and {r["agent"] for r in records} == agents, bench
    status = _dvc(["status"], project, env)
    assert status.returncode == 0 and "up to date" in status.stdout, status.stdout
    second = _dvc(["repro"], project, env)
    assert second.returncode == 0
    assert "Running stage" not in second.stdout and "didn't change, skipping" in second.stdout
    # J1-EVAL: the judge and report stages forced to run again on the warm response cache write the same bytes
    j1 = [project / "data/j1/runs" / a / "scores.parquet" for a in ("oracle", "null")]
    j1 += [project / "reports/j1.md", project / "reports/j1.csv"]
    j1 += sorted((project / "reports/html").glob("*.html"))  # the HTML report is rebuilt byte for byte
    before = [p.read_bytes() for p in j1]
    forced = repro(
        ["--force", "--single-item", "j1_judge@oracle", "j1_judge@null", "j1_report", "html_report"], project, env
    )
    assert forced.returncode == 0 and forced.stdout.count("Running stage") == 4, forced.stdout[-3000:]
    assert [p.read_bytes() for p in j1] == before

"""`jurisflow eval` runs one benchmark at a time (issue 37, item 1): a benchmark whose stage fails stops there, the
others still run and DVC records them, the exit code is 1 and the summary names the failed benchmark; at the end the
HTML report is rebuilt when a report was refreshed and its inputs exist. `run_plan` on a small DVC project of shell
stages (real `dvc repro`, no model, no Prefect)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from flows.evaluate import HTML_REPORT, Plan, run_plan

DVC = Path(sys.executable).parent / "dvc"


def _stage(cmd: str, deps: list[str], out: str) -> dict:
    return {"cmd": cmd, "deps": deps, "outs": [out]} if deps else {"cmd": cmd, "outs": [out]}


def _project(root: Path, shared_fails: bool = False) -> Path:
    stages = {
        "shared": _stage("exit 3" if shared_fails else "echo items > shared.txt", [], "shared.txt"),
        "lawbench_predict": _stage("cat shared.txt > lawbench.txt", ["shared.txt"], "lawbench.txt"),
        "lawbench_report": _stage("cat lawbench.txt > lawbench.csv", ["lawbench.txt"], "lawbench.csv"),
        "ucl_simulate": _stage("echo half > ucl.txt; exit 3", ["shared.txt"], "ucl.txt"),  # a stage that fails
        "ucl_report": _stage("cat ucl.txt > ucl.csv", ["ucl.txt"], "ucl.csv"),
        "mile_simulate": _stage("cat shared.txt > mile.txt", ["shared.txt"], "mile.txt"),
        "mile_report": _stage("cat mile.txt > mile.csv", ["mile.txt"], "mile.csv"),
        "other_agent": _stage("echo theirs > other.txt", [], "other.txt"),  # never run: stale
        HTML_REPORT: _stage("cat lawbench.csv > index.html", ["lawbench.csv"], "index.html"),
    }
    (root / "dvc.yaml").write_text(yaml.safe_dump({"stages": stages}, sort_keys=False), encoding="utf-8")
    subprocess.run([str(DVC), "init", "--no-scm", "-q"], cwd=root, check=True)
    return root


# the benchmarks out of pipeline order, so that the failing one is not the last to run
PLAN = Plan(
    first=["shared", "ucl_simulate", "lawbench_predict", "mile_simulate"],
    reports={"ucl_report": ["ucl_report"], "lawbench_report": ["lawbench_report"], "mile_report": ["mile_report"]},
    others={"ucl_report": [], "lawbench_report": [], "mile_report": ["other_agent"]},
    common=["shared"],
    groups={"ucl": ["ucl_simulate"], "lawbench": ["lawbench_predict"], "mile": ["mile_simulate"]},
    html=["lawbench.csv"],
)


@pytest.fixture
def here(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")  # the stages here report to no Prefect
    return tmp_path


def _locked(root: Path) -> set[str]:
    lock = root / "dvc.lock"
    return set(yaml.safe_load(lock.read_text(encoding="utf-8"))["stages"]) if lock.is_file() else set()


def test_a_failed_benchmark_loses_none_of_the_others_results(here):
    _project(here)
    said: list[str] = []
    outcome = run_plan("probe", PLAN, said.append)
    assert outcome.failed == {"ucl": "not up to date: ucl_simulate"}
    assert outcome.refreshed == ["lawbench_report", HTML_REPORT]
    assert outcome.not_refreshed == {"mile_report": ["other_agent"]}  # its stages ran; its report waits
    assert outcome.code == 1
    # DVC recorded every stage that ran after the failure; the failed one and its report are not locked
    assert _locked(here) == {"shared", "lawbench_predict", "lawbench_report", "mile_simulate", HTML_REPORT}
    assert (here / "index.html").read_text() == "items\n"
    assert said[0] == "ucl failed (not up to date: ucl_simulate); the other benchmarks go on"
    assert said[1].startswith("mile_report not refreshed: it reads other agents' stages that are not up to date")
    summary = outcome.summary("probe", ["lawbench", "mile", "ucl"]).splitlines()
    assert summary == [
        "eval probe: summary",
        "  lawbench   done, report refreshed",
        "  mile       its stages done; mile_report not refreshed (other agents' stages it reads are stale)",
        "  ucl        FAILED: not up to date: ucl_simulate",
    ]


def test_a_failed_shared_stage_stops_every_benchmark(here):
    _project(here, shared_fails=True)
    said: list[str] = []
    outcome = run_plan("probe", PLAN, said.append)
    why = "a stage its benchmarks share failed (not up to date: shared)"
    assert outcome.failed == dict.fromkeys(("ucl", "lawbench", "mile"), why) and outcome.refreshed == []
    assert said == [f"{why}: no benchmark can run"] and _locked(here) == set()


def test_the_html_report_waits_for_its_inputs(here):
    _project(here)
    said: list[str] = []
    outcome = run_plan("probe", Plan([], {}, {}, [], {}, ["lawbench.csv", "j1.csv"]), said.append)
    assert outcome.refreshed == [] and outcome.code == 0
    assert said == [f"{HTML_REPORT} not rebuilt: no report was refreshed"]
    only_lawbench = Plan(
        ["shared", "lawbench_predict"],
        {"lawbench_report": ["lawbench_report"]},
        {"lawbench_report": []},
        [],
        {"lawbench": ["shared", "lawbench_predict"]},
        ["lawbench.csv", "j1.csv"],
    )
    said.clear()
    outcome = run_plan("probe", only_lawbench, said.append)
    assert outcome.refreshed == ["lawbench_report"] and outcome.code == 0  # the HTML report is no result of its own
    assert said == [
        f"{HTML_REPORT} not rebuilt: its inputs j1.csv do not exist here (benchmarks this project has not run); "
        f"`dvc repro {HTML_REPORT}` runs what writes them, then it"
    ]

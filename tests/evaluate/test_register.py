"""`jurisflow eval`'s pieces: the agent's entry and the `runs` lists written into params.yaml (comments kept,
validated first), the stages it runs, the headline numbers read back from a report's CSV twin, and the LawBench
report of an agent that has run one setting only."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.evaluate import HeadlineLine, Settings, headline_text, headlines, plan, register, sync_file
from flows.kit.config import ParamsError, load_params
from flows.results import headline_rows
from steps.lawbench.report import render_setting
from steps.reports.agents import AgentInfo
from steps.reports.long import long_columns
from steps.results import leaderboard
from tests.conftest import ROOT

BASE = """# my parameters
agents:
  oracle:
    model: scripted/oracle   # the upper bound
  "null":
    model: scripted/null
    benchmarks: [lawbench, ucl]
runs:
  lawbench: [oracle, "null"]
  j1: [oracle]
  mile: [oracle]
  ucl: [oracle, "null"]
  plawbench: [oracle]
lawbench:
  limit: 5
"""


def _file(tmp_path: Path, text: str = BASE) -> Path:
    path = tmp_path / "params.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_register_adds_the_agent_and_its_runs_keeping_everything_else(tmp_path):
    path = _file(tmp_path)
    register(
        path,
        "probe",
        "hosted_vllm/Qwen3-8B",
        Settings(api_base="http://127.0.0.1:8000/v1", benchmarks=["lawbench"], limit=2),
    )
    text = path.read_text(encoding="utf-8")
    assert "# my parameters" in text and "# the upper bound" in text  # comments survive
    params = load_params(path)
    assert params.agents["probe"].benchmarks == ["lawbench"] and params.agents["probe"].limit == 2
    assert params.agents["probe"].api_base == "http://127.0.0.1:8000/v1"
    assert params.runs["lawbench"] == ["oracle", "null", "probe"] and "probe" not in params.runs["ucl"]
    # the other agents' entries are untouched (their stages depend on them alone)
    raw = yaml.safe_load(text)
    assert raw["agents"]["oracle"] == {"model": "scripted/oracle"}
    assert raw["agents"]["null"] == {"model": "scripted/null", "benchmarks": ["lawbench", "ucl"]}
    # the effective cap: the agent's own and lawbench.limit, the smaller
    assert params.limit_for("probe", "lawbench") == 2 and params.limit_for("oracle", "lawbench") == 5


def test_a_second_eval_adds_benchmarks_and_updates_the_limit(tmp_path):
    path = _file(tmp_path)
    register(path, "probe", "scripted/oracle", Settings(benchmarks=["lawbench"], limit=2))
    register(path, "probe", "scripted/oracle", Settings(benchmarks=["ucl"], limit=None))
    params = load_params(path)
    assert params.agents["probe"].benchmarks == ["lawbench", "ucl"] and params.agents["probe"].limit is None
    register(path, "probe", "scripted/oracle", Settings(benchmarks=None))  # all five: the key is dropped
    assert "benchmarks" not in yaml.safe_load(path.read_text())["agents"]["probe"]
    assert load_params(path).runs["j1"] == ["oracle", "probe"]


def test_a_bad_entry_is_refused_before_anything_is_written(tmp_path):
    path = _file(tmp_path)
    with pytest.raises(ParamsError, match=r"agents\.probe\.model"):
        register(path, "probe", "nosuchprovider/x")
    assert path.read_text(encoding="utf-8") == BASE
    assert not list(tmp_path.glob(".params.yaml.check"))


def test_runs_that_disagree_with_agents_are_refused_and_sync_rewrites_them(tmp_path):
    path = _file(tmp_path, BASE.replace('ucl: [oracle, "null"]', "ucl: [oracle]"))
    with pytest.raises(ParamsError, match="jurisflow params sync"):
        load_params(path)
    sync_file(path)
    assert load_params(path).runs["ucl"] == ["oracle", "null"]


def test_the_plan_of_one_agent_never_holds_another_agents_stage(monkeypatch):
    """The shipped dvc.yaml and params.yaml (agents oracle and null): an eval of oracle runs the shared stages and
    its own, then the reports, which read null's stages: those are checked, never run."""
    monkeypatch.chdir(ROOT)
    chosen = plan("oracle", ["lawbench", "ucl"])
    assert chosen.first == [
        "ingest",
        "lawbench_score",
        "lawbench_predict@oracle-one_shot",
        "lawbench_predict@oracle-zero_shot",
        "ucl_reference",
        "ucl_simulate@oracle",
        "ucl_judge@oracle",
    ]
    assert chosen.reports == {"lawbench_report": ["lawbench_report"], "ucl_report": ["ucl_report"]}
    assert chosen.others == {
        "lawbench_report": ["lawbench_predict@null-one_shot", "lawbench_predict@null-zero_shot"],
        "ucl_report": ["ucl_simulate@null", "ucl_judge@null"],
    }
    # run one benchmark at a time after the stages both need, so that one benchmark's failure stops only its own
    assert chosen.common == ["ingest"]
    assert chosen.groups == {
        "lawbench": ["lawbench_score", "lawbench_predict@oracle-one_shot", "lawbench_predict@oracle-zero_shot"],
        "ucl": ["ucl_reference", "ucl_simulate@oracle", "ucl_judge@oracle"],
    }
    assert chosen.html is not None and {"reports/lawbench.csv", "data/ucl"} <= set(chosen.html)
    j1 = plan("oracle", ["j1"])
    assert j1.first[-2:] == ["j1_simulate@oracle", "j1_judge@oracle"] and "@null" not in " ".join(j1.first)
    assert j1.others == {"j1_report": ["j1_simulate@null", "j1_judge@null"]}


def _twin(rows: list[tuple]) -> pd.DataFrame:
    """A LawBench CSV twin of (table, agent, scope, value, n, limit, proxy, source) score rows."""
    columns = ["table", "agent", "scope", "value", "n", "limit", "proxy", "source"]
    frame = pd.DataFrame(rows, columns=columns).assign(benchmark="lawbench", metric="score", judge="")
    frame["n_failed"] = [0 if s == "ours" else None for s in frame.source]
    frame["protocol"] = [("60 of 10,000 items" if s == "ours" else None) for s in frame.source]
    frame = frame.astype({"n": "Int64", "n_failed": "Int64", "limit": "Int64"})
    return frame[long_columns(with_limit=True)]


def test_headlines_are_the_leaderboards_numbers_and_labels_beside_the_papers(tmp_path):
    """eval's summary reads what `jurisflow results` shows: the same columns, paper rows and labels (issue 37)."""
    _twin(
        [
            ("zero_shot", "probe", "overall", 0.41234, 60, 3, False, "ours"),
            ("zero_shot", "GPT4", "overall", 0.524, None, None, False, "paper"),
            ("zero_shot", "qwen", "overall", 0.3581, None, None, False, "paper"),
            ("zero_shot", "other", "overall", 0.9, 60, None, True, "ours"),
            ("one_shot", "probe", "1-1", 0.7, 3, 3, False, "ours"),  # no one-shot Overall yet
        ]
    ).to_csv(tmp_path / "lawbench.csv", index=False)
    got = headlines("probe", ["lawbench"], tmp_path)
    assert [h.column for h in got] == ["LawBench 0-shot", "LawBench 1-shot"]  # the leaderboard's columns
    # the paper's numbers are the 51 models of LawBench's appendix tables (Overall as printed), not the twin's
    # mirrored results.csv rows (GPT4, qwen above)
    papers = got[0].paper
    assert len(papers) == 51 and papers[0] == ("GPT-4", pytest.approx(52.35)) and "qwen" not in dict(papers)
    # beside the paper's numbers, the label carries the protocol (the leaderboard lists it under its table)
    assert got[0] == HeadlineLine("LawBench 0-shot", "probe [limit 3] [60 of 10,000 items]", "41.2 (n 60)", papers)
    assert got[1].cell is None and len(got[1].paper) == 51
    text = headline_text("probe", ["lawbench"], tmp_path)
    assert (
        "probe [limit 3] [60 of 10,000 items]  41.2 (n 60)" in text
        and "paper: best GPT-4 52.3, median 14.8 over 51 models" in text  # 52.35 as a double: 52.3499…
    )
    assert "not in the report" in text
    board = leaderboard(headline_rows(tmp_path)).set_index("agent")
    assert board.loc["probe [limit 3]", "LawBench 0-shot"] == got[0].cell
    assert board.loc["other [scripted]", "LawBench 0-shot"] == "90.0 (n 60)"


def test_every_benchmarks_paper_rows_are_the_leaderboards():
    """J1 and UCL-Bench were summarised as "no published number" while `results` listed their papers' models."""
    text = headline_text("oracle", ["j1", "ucl"], ROOT / "reports")
    rows = headline_rows(ROOT / "reports")
    for column in ("J1 AVG (OO)", "J1 AVG (PO)", "UCL win rate"):
        papers = rows[(rows["column"] == column) & (rows.source == "paper") & rows.value.notna()]
        best = papers.sort_values("value", ascending=False).iloc[0]
        line = next(x for x in text.splitlines() if x.strip().startswith(column))
        assert f"paper: best {best.agent} {best.value:.1f}" in line and f"over {len(papers)} models" in line, line
    assert "no published number" not in text


def test_the_lawbench_report_names_a_setting_an_agent_has_not_run():
    long = pd.DataFrame(
        {
            "table": ["zero_shot"],
            "agent": ["probe"],
            "scope": ["1-1"],
            "metric": ["score"],
            "value": [0.5],
            "source": ["ours"],
            "n": [1],
            "n_failed": [0],
        }
    )
    deltas = pd.DataFrame(columns=["setting", "metric", "max_abs_diff", "cells_compared", "largest_at"])
    agents = {"probe": AgentInfo("probe", "scripted/oracle", True)}
    one_shot = render_setting(long, deltas, "one_shot", agents, "c0ffee", [])
    assert "`probe`: `scripted/oracle` has not run this setting yet" in one_shot
    assert "probe [scripted]" not in one_shot
    assert "probe [scripted]" in render_setting(long, deltas, "zero_shot", agents, "c0ffee", [])


# issue 35, item 4: `--api-key-env` given the key itself
KEY = "sk-proj-Zq81xVb3KpL0aa7"
BIN = Path(sys.executable).parent


def _eval(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / "jurisflow"), "eval", "--agent", "probe", "--model", "openai/gpt-4o", *args],
        cwd=cwd,
        env=env or dict(os.environ),
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("value", [KEY, "UNSET_JF_TEST_VARIABLE"])
def test_eval_refuses_a_key_value_or_an_unset_variable_without_writing_or_repeating_it(tmp_path, value):
    path = _file(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "UNSET_JF_TEST_VARIABLE"}
    done = _eval(tmp_path, "--api-base", "http://127.0.0.1:9/v1", "--api-key-env", value, env=env)
    assert done.returncode == 1
    lines = (done.stdout + done.stderr).strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --api-key-env: ") and "nothing was written" in lines[0]
    assert value not in done.stdout + done.stderr
    assert path.read_text(encoding="utf-8") == BASE  # params.yaml untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["params.yaml"]  # no lock, no check file, no log


def test_register_refuses_a_key_value_too(tmp_path):
    path = _file(tmp_path)
    with pytest.raises(ParamsError, match=r"agents\.probe\.api_key_env: must be the NAME") as caught:
        register(path, "probe", "openai/gpt-4o", Settings(api_key_env=KEY))
    assert KEY not in str(caught.value) and path.read_text(encoding="utf-8") == BASE


# issue 35, item 5: concurrent writers of params.yaml
WRITER = """
import sys
from pathlib import Path
from flows.evaluate import Settings, register
for k in range(int(sys.argv[3])):
    register(Path(sys.argv[1]), f"{sys.argv[2]}{k}", "scripted/oracle", Settings(benchmarks=["lawbench"]))
"""


def test_two_processes_registering_at_once_lose_no_agent(tmp_path):
    path = _file(tmp_path)
    n = 12
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), prefix, str(n)], stderr=subprocess.PIPE, text=True)
        for prefix in ("a", "b")
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
    params = load_params(path)
    assert {f"{p}{k}" for p in "ab" for k in range(n)} <= set(params.agents)
    assert "# the upper bound" in path.read_text(encoding="utf-8")


HOLDER = """
import sys, time
from pathlib import Path
from flows.kit.locks import one_eval, params_writing
with one_eval(Path(sys.argv[1]), "first", print) if sys.argv[2] == "eval" else params_writing(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(float(sys.argv[3]))
"""


def _hold(path: Path, which: str, seconds: float) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), which, str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_second_eval_waits_for_the_first_saying_for_whom_before_writing(tmp_path):
    path = _file(tmp_path)
    holder = _hold(path, "eval", 600)  # held until the second eval says it waits, however slowly it starts
    second = subprocess.Popen(
        [str(BIN / "jurisflow"), "eval", "--agent", "probe", "--model", "nosuchprovider/x"],  # refused on its turn
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert second.stderr is not None
    before = []  # what it says until it waits (or ends)
    while (line := second.stderr.readline()) and not line.startswith("waiting for the other `jurisflow eval`"):
        before.append(line)
    holder.terminate()
    holder.wait(timeout=60)
    rest = second.stderr.read()
    assert second.wait(timeout=300) == 1 and "agents.probe.model" in rest, "".join(before) + line + rest
    assert line.startswith("waiting for the other") and f"(pid {holder.pid}, agent first, since " in line
    assert not any(x.startswith("waiting for the other") for x in rest.splitlines())  # said once
    assert path.read_text(encoding="utf-8") == BASE


def test_a_writer_that_cannot_get_the_params_lock_in_time_refuses_in_one_line(tmp_path):
    from flows.kit.locks import LockBusyError, params_writing

    path = _file(tmp_path)
    holder = _hold(path, "params", 30)
    try:
        with (
            pytest.raises(LockBusyError, match=r"another command has been writing it for 1 s") as caught,
            params_writing(path, wait_s=1.0),
        ):
            pass
        assert "\n" not in str(caught.value)
    finally:
        holder.kill()
        holder.wait()

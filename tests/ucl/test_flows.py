"""The UCL stages end to end on one item per task: simulate (reference and agents), judge, report; a rerun
rebuilds identical tables from the cache; an interrupted simulation resumes from its journal."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

import steps.ucl.stages as dialogues_module
from flows.kit.paths import Paths
from flows.kit.stage import run_stage
from flows.run import ucl_judge, ucl_reference, ucl_report, ucl_simulate
from steps.reports.long import LONG_COLUMNS
from steps.schemas import Turns
from steps.tables import read_table, write_table
from steps.ucl.schemas import UclDialogues, UclHintScores, UclVerdicts
from steps.ucl.sources import Ucl

pytestmark = pytest.mark.slow  # runs stages end to end: handed out before the quick modules

CSV_COLUMNS = LONG_COLUMNS


def params_file(tmp_path: Path, **ucl) -> Path:
    doc = {
        "agents": {"oracle": {"model": "scripted/oracle"}, "null": {"model": "scripted/null"}},
        "environment": {"model": "scripted/persona"},
        "judge": {"model": "scripted/judge"},
        "llm": {"cache_dir": str(tmp_path / "cache"), "backoff_base_s": 0.01, "max_attempts": 2},
        "ucl": {"limit": 1, **ucl},
    }
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path, ucl_items) -> tuple[Path, Paths]:
    paths = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=tmp_path / ".cache")
    write_table(ucl_items, paths.interim / "ucl.parquet", Ucl, table="ucl")
    return params_file(tmp_path), paths


def run_all(params: Path, paths: Paths) -> None:
    assert run_stage("ucl_reference", ucl_reference, params_file=params, paths=paths) == 0
    for agent in ("oracle", "null"):
        assert run_stage("ucl_simulate", ucl_simulate, agent_name=agent, params_file=params, paths=paths) == 0
        assert run_stage("ucl_judge", ucl_judge, agent_name=agent, params_file=params, paths=paths) == 0
    assert run_stage("ucl_report", ucl_report, params_file=params, paths=paths) == 0


def snapshot_bytes(paths: Paths) -> dict[str, bytes]:
    names = ["turns", "dialogues", "usage", "verdicts", "hint_scores", "judge_usage"]
    out = {f"{a}/{n}": (paths.run("ucl", a) / f"{n}.parquet").read_bytes() for a in ("oracle", "null") for n in names}
    out["reference"] = (paths.reference("ucl") / "dialogues.parquet").read_bytes()
    out["reference usage"] = (paths.reference("ucl") / "usage.parquet").read_bytes()
    for name in ("ucl.csv", "metrics/ucl.json", "plots/ucl_win_rate.csv"):
        out[name] = (paths.reports / name).read_bytes()
    return out


def test_the_stages_run_end_to_end_and_a_rerun_is_identical(project, capsys):
    params, paths = project
    run_all(params, paths)
    for agent in ("oracle", "null"):
        run = paths.run("ucl", agent)
        read_table(run / "turns.parquet", Turns)
        dialogues = read_table(run / "dialogues.parquet", UclDialogues)
        verdicts = read_table(run / "verdicts.parquet", UclVerdicts)
        read_table(run / "hint_scores.parquet", UclHintScores)
        assert len(dialogues) == 23 and len(verdicts) == 46 and (run / "usage.parquet").is_file()
        assert (run / "judge_usage.parquet").is_file() and (run / "run.json").is_file()
        assert (run / "judge" / "run.json").is_file()
    assert list(paths.cache.rglob("*.jsonl")) == []  # journals go once the tables are written
    csv = pd.read_csv(paths.reports / "ucl.csv", keep_default_na=False, na_values=[""])  # an agent is named null
    assert list(csv.columns) == CSV_COLUMNS and set(csv.source) == {"ours"}
    overall = csv[(csv.metric == "win_rate") & (csv.scope == "overall")].set_index("agent").value
    assert overall.to_dict() == {"null": 50.0, "oracle": 100.0}
    metrics = json.loads((paths.reports / "metrics/ucl.json").read_text(encoding="utf-8"))  # DVC's metrics file
    assert metrics == overall.to_dict()  # the main number: the win rate
    details = json.loads((paths.reports / "metrics/details/ucl.json").read_text(encoding="utf-8"))
    assert {a: m["win_rate"] for a, m in details.items()} == overall.to_dict()
    plot = pd.read_csv(paths.reports / "plots/ucl_win_rate.csv", keep_default_na=False, na_values=[""])
    assert list(plot.columns) == ["task", "agent", "win_rate"] and set(plot.agent) == {"oracle", "null"}
    assert plot[plot.task == "overall"].set_index("agent").win_rate.to_dict() == overall.to_dict()
    report = (paths.reports / "ucl.md").read_text(encoding="utf-8")
    protocol = (
        "[environment scripted/persona, paper GPT-4 (gpt-4-0613); judge scripted/judge, paper GPT-4 (gpt-4-0613); "
        "reference scripted/null, paper ChatGPT (gpt-3.5-turbo-1106); 23 of 1,100 items]"
    )
    assert (
        "**scripted_null** = `scripted/null`" in report
        and f"| oracle [scripted] [limit 1] {protocol} | 1 | 100 |" in report
    )
    assert "1 public items per task judged per agent" in report  # ucl.limit 1: no row claims more
    out = capsys.readouterr().err
    assert "oracle (scripted/oracle): 23 dialogues over 23 tasks" in out and "scripted_null" in out
    # the judge stage's summary gives the report's AVG (the 22 tasks; CC apart)
    assert "null vs scripted_null judged by scripted/judge" in out and "win rate AVG 50.0, hint score AVG 0.0" in out

    first = snapshot_bytes(paths)
    run_all(params, paths)
    assert snapshot_bytes(paths) == first


def test_an_interrupted_simulation_resumes_from_its_journal(project, monkeypatch, capsys):
    params, paths = project

    def crash(*args, **kwargs):
        raise RuntimeError("killed after the dialogues")

    monkeypatch.setattr(dialogues_module, "ucl_tables", crash)
    assert run_stage("ucl_simulate", ucl_simulate, agent_name="oracle", params_file=params, paths=paths) == 1
    [journal] = list((paths.cache / "journals" / "ucl").rglob("*.jsonl"))
    assert journal.read_text(encoding="utf-8").count('"type": "done"') == 23
    monkeypatch.undo()
    capsys.readouterr()
    assert run_stage("ucl_simulate", ucl_simulate, agent_name="oracle", params_file=params, paths=paths) == 0
    assert "23 resumed from the journal" in capsys.readouterr().err
    assert not journal.exists()
    assert len(read_table(paths.run("ucl", "oracle") / "dialogues.parquet", UclDialogues)) == 23
    # the calls the journal answered are accounted as the door accounted them: the same usage table as a run
    # without a journal (every call then answered by the response cache)
    resumed = (paths.run("ucl", "oracle") / "usage.parquet").read_bytes()
    assert run_stage("ucl_simulate", ucl_simulate, agent_name="oracle", params_file=params, paths=paths) == 0
    assert "0 resumed from the journal" in capsys.readouterr().err
    assert (paths.run("ucl", "oracle") / "usage.parquet").read_bytes() == resumed


def test_bad_configuration_fails_with_a_clear_message(project, tmp_path, capsys):
    _, paths = project
    clash = params_file(tmp_path, reference={"name": "oracle", "model": "scripted/oracle"})
    assert run_stage("ucl_report", ucl_report, params_file=clash, paths=paths) == 1
    assert "ucl.reference.name 'oracle' is also an agent name" in capsys.readouterr().err
    assert (
        run_stage("ucl_simulate", ucl_simulate, agent_name="nobody", params_file=params_file(tmp_path), paths=paths)
        == 1
    )
    assert "unknown agent 'nobody'" in capsys.readouterr().err

"""The MILE stages end to end on a small sample: simulate → judge → report → SFT export; rerun and resume."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.kit.context import FlowContext
from flows.kit.models import read_usage_log
from flows.kit.stage import run_stage
from flows.run import mile_judge, mile_report, mile_simulate
from steps.mile.commands import export_sft as export_command
from steps.mile.schemas import MileDialogues, MileScores
from steps.params import Params
from steps.paths import Paths
from steps.schemas import Turns
from steps.tables import read_table
from tests.helpers import project_paths

pytestmark = pytest.mark.slow  # runs stages end to end: handed out before the quick modules


@pytest.fixture(scope="module")
def project(tmp_path_factory, interim):
    root = tmp_path_factory.mktemp("mile")
    params = {
        "agents": {"oracle": {"model": "scripted/oracle"}, "null": {"model": "scripted/null"}},
        "environment": {"model": "scripted/persona"},
        "judge": {"model": "scripted/judge"},
        "llm": {"cache_dir": str(root / "llm")},
        "mile": {"sample": 3},
    }
    (root / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    args = {"params_file": root / "params.yaml", "paths": project_paths(root, interim)}
    for agent in ("oracle", "null"):
        assert run_stage("mile_simulate", mile_simulate, agent_name=agent, **args) == 0
        assert run_stage("mile_judge", mile_judge, agent_name=agent, **args) == 0
    assert run_stage("mile_report", mile_report, **args) == 0
    return root


def runs(project: Path) -> Path:
    return project / "data" / "mile" / "runs"


def test_every_table_is_written_and_valid(project):
    for agent in ("oracle", "null"):
        run = runs(project) / agent
        turns = read_table(run / "turns.parquet", Turns)
        dialogues = read_table(run / "dialogues.parquet", MileDialogues)
        scores = read_table(run / "scores.parquet", MileScores)
        rid = json.loads((run / "run.json").read_text())["run_id"]
        assert len(dialogues) == 3 and set(turns.run_id) == {rid} == set(scores.run_id)
        assert scores.failure.isna().all() and (run / "usage.parquet").is_file()
        assert (run / "judge_usage.parquet").is_file()


def test_the_report_and_its_csv_twin(project):
    md = (project / "reports" / "mile.md").read_text(encoding="utf-8")
    assert "## Table 1 — goal evaluation" in md and "## Table 2 — interaction evaluation" in md
    protocol = (
        "[environment scripted/persona, paper gpt-4o-2024-08-06; judge scripted/judge, paper gpt-4o-2024-08-06; "
        "3 of 693 instances]"
    )
    assert f"| oracle [scripted] {protocol} | scripted/oracle | 3 | 100 ± 0 | 100 ± 0 |" in md
    csv = pd.read_csv(project / "reports" / "mile.csv", keep_default_na=False, na_values=[""])  # agent "null"
    ours = csv[(csv.source == "ours") & (csv["table"] == "goal") & (csv.scope == "overall")]
    cli = ours.set_index(["agent", "metric"]).value
    assert cli[("oracle", "CLI")] == 100 and cli[("null", "CLI")] == 0 and ours.proxy.all()
    # every goal number of ours has its interval (clustered on the dialogue; AVE bootstrapped), the paper's none
    methods = ours.set_index(["agent", "metric"]).ci_method
    assert methods[("oracle", "CLI")] == "cluster-se(t, G=3)" and methods[("null", "AVE")].startswith(
        "cluster-bootstrap"
    )
    assert (ours.ci_low <= ours.value + 1e-9).all() and (ours.value <= ours.ci_high + 1e-9).all()
    assert csv[csv.source == "paper"].ci_method.isna().all()


def test_run_json_and_the_report_name_the_decoding_of_every_role(project):
    spec = json.loads((runs(project) / "oracle" / "run.json").read_text())
    env = spec["environment"]
    assert env["role_decoding"] == "paper" and set(env["roles"]) == {
        "client",
        "supervisor",
        "classifier",
        "styler",
        "blur",
    }
    assert env["roles"]["client"] == {"temperature": 0.5, "top_p": 1.0, "max_tokens": 2048, "seed": None, "extra": {}}
    assert env["roles"]["blur"]["temperature"] == 0.5 and env["roles"]["classifier"]["max_tokens"] == 1024
    md = (project / "reports" / "mile.md").read_text(encoding="utf-8")
    assert (
        "- Decoding per environment role (`mile.role_decoding: paper`, merged over the environment model's): "
        "client temperature 0.5, top_p 1, max_tokens 2048; supervisor temperature 0, max_tokens 2048; "
        "stage classifier temperature 0, max_tokens 1024; style checker temperature 0, max_tokens 1024; "
        "fact blurring temperature 0.5"
    ) in md
    lawyer = next(line for line in md.splitlines() if line.startswith("- Decoding of the lawyer (each agent's own): "))
    assert "`oracle` temperature 0" in lawyer and "`null` temperature 0" in lawyer
    assert "Runs differ" not in md


def export_sft(run: str, out: Path, paths=None) -> str:
    """`jurisflow mile export-sft RUN --out OUT`'s line."""
    (line,) = export_command(FlowContext(Params(), paths or Paths()), run, out)
    return line


def test_the_sft_export_is_chat_format_from_the_lawyers_point_of_view(project, tmp_path):
    out = tmp_path / "sft.jsonl"
    summary = export_sft(str(runs(project) / "oracle"), out)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 and "3 dialogues" in summary
    record = json.loads(lines[0])
    roles = [m["role"] for m in record["messages"]]
    assert roles[0] == "system" and roles[1::2] == ["user"] * (len(roles) // 2)
    assert roles[2::2] == ["assistant"] * ((len(roles) - 1) // 2) and roles[-1] == "assistant"
    assert record["messages"][-1]["content"].startswith("起诉状")
    assert "按照下面的模板写出完整的民事起诉状" in record["messages"][-2]["content"]
    meta = record["metadata"]
    assert meta["instance_id"].startswith("mile/") and {"personality", "tone", "less"} <= set(meta["persona"])
    assert meta["lawyer_model"] == "scripted/oracle" and meta["environment_model"] == "scripted/persona"
    empty = export_sft(str(runs(project) / "null"), tmp_path / "null.jsonl")
    assert "0 dialogues" in empty and "3 no complaint" in empty
    with pytest.raises(FileNotFoundError):
        export_sft("nope", tmp_path / "x.jsonl", paths=project_paths(project, tmp_path))


def _frame(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path)


def test_a_rerun_replays_the_journal_and_an_interrupted_run_resumes(project, interim):
    run = runs(project) / "oracle"
    before = _frame(run / "turns.parquet")
    usage = (run / "usage.parquet").read_bytes()
    calls = len(pd.read_parquet(run / "usage.parquet"))
    args = {"agent_name": "oracle", "params_file": project / "params.yaml", "paths": project_paths(project, interim)}
    assert run_stage("mile_simulate", mile_simulate, **args) == 0
    # every dialogue came from the journal: no call was asked, yet the usage table is the first run's, byte for byte
    logged = read_usage_log(project / "llm", run / "usage.parquet", last=True)
    assert len(logged) == calls > 0 and logged.cache_hit.all() and (logged.attempts == 0).all()
    assert (run / "usage.parquet").read_bytes() == usage
    pd.testing.assert_frame_equal(_frame(run / "turns.parquet"), before)
    # cut the journal as a kill would: the last dialogue's `done` record and its last calls are lost
    journal = next((project / ".cache" / "journals" / "mile" / "oracle").glob("*.jsonl"))
    lines = journal.read_text(encoding="utf-8").splitlines()
    last_done = max(i for i, line in enumerate(lines) if json.loads(line)["type"] == "done")
    journal.write_text("\n".join(lines[: last_done - 5]) + "\n" + lines[last_done - 5][:20], encoding="utf-8")
    assert run_stage("mile_simulate", mile_simulate, **args) == 0
    logged = read_usage_log(project / "llm", run / "usage.parquet", last=True)
    assert len(logged) == calls  # the replayed calls are accounted as when they were made, the lost ones asked again
    assert (run / "usage.parquet").read_bytes() == usage
    pd.testing.assert_frame_equal(_frame(run / "turns.parquet"), before)

"""A MILE judge whose answers never parse does not pass: stage `mile_judge` with the judge on the fake
OpenAI-compatible server answering prose (no JSON grade) exits 1 under `llm.max_failed_fraction` 0, is accepted
only at a tolerance that covers the share, and the report shows `(n unparsable)` in every cell it empties."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml

from flows.kit.stage import run_stage
from flows.run import mile_judge, mile_report, mile_simulate
from tests.fake_openai_server import FakeOpenAIServer
from tests.helpers import project_paths

pytestmark = pytest.mark.slow  # runs stages end to end: handed out before the quick modules

PROSE = "这份起诉状写得不错，我给八分。"  # a grade in words: never the JSON the judge is asked for


def test_a_judge_answering_prose_fails_mile_judge_and_the_report_counts_its_answers(tmp_path, interim, capsys):
    with FakeOpenAIServer(reply=lambda body: PROSE) as server:
        params = {
            "agents": {"oracle": {"model": "scripted/oracle"}},
            "environment": {"model": "scripted/persona"},
            "judge": {"model": "hosted_vllm/test-judge", "api_base": server.url},
            "llm": {"cache_dir": str(tmp_path / "llm"), "max_failed_fraction": 0.0},
            "mile": {"sample": 2},
        }
        path = tmp_path / "params.yaml"
        path.write_text(yaml.safe_dump(params), encoding="utf-8")
        args = {"params_file": path, "paths": project_paths(tmp_path, interim)}
        assert run_stage("mile_simulate", mile_simulate, agent_name="oracle", **args) == 0
        assert run_stage("mile_judge", mile_judge, agent_name="oracle", **args) == 1
        run = tmp_path / "data" / "mile" / "runs" / "oracle"
        scores = pd.read_parquet(run / "scores.parquet")
        judged = scores[scores.judge != "rule"]
        assert len(judged) and (judged.failure == "unparsable").all()
        assert pd.read_parquet(run / "judge_usage.parquet").failure_kind.isna().all()  # every call answered
        assert f"{len(judged)} of {len(judged)} judge answers unparsable after the repair rounds" in (
            capsys.readouterr().err
        )

        params["llm"]["max_failed_fraction"] = 1.0
        path.write_text(yaml.safe_dump(params), encoding="utf-8")
        assert run_stage("mile_judge", mile_judge, agent_name="oracle", **args) == 0
    assert run_stage("mile_report", mile_report, **args) == 0
    csv = pd.read_csv(tmp_path / "reports" / "mile.csv", keep_default_na=False, na_values=[""])
    ours = csv[csv.source == "ours"].set_index(["table", "scope", "metric"])
    assert ours.n_unparsable[("goal", "overall", "F&R")] == 2  # both dialogues' grades
    assert ours.n_unparsable[("goal", "overall", "CLI")] == 0  # matched by rule, no judge
    assert ours.n_unparsable[("consistency", "overall", "CONS")] == 2
    windows = int(ours.n_unparsable[("interaction", "windows", "INT")])
    assert windows >= 2 and pd.isna(ours.value[("interaction", "overall", "INT")])  # no window graded: still a row
    assert csv[csv.source == "paper"].n_unparsable.isna().all()
    report = (tmp_path / "reports" / "mile.md").read_text(encoding="utf-8")
    goal = next(line for line in report.splitlines() if line.startswith("| oracle"))
    assert goal.count("— (2 unparsable)") >= 5  # F&R, CLA, EVID, STA, PROF (and AVE)
    interaction = report.split("## Table 2")[1].split("### Published")[0]  # its row is there, every cell counted
    assert f"— ({windows} unparsable)" in interaction
    assert "## Unparsable judge answers" in report

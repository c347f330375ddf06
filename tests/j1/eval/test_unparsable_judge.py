"""A J1 judge whose answers never parse does not pass: stage `j1_judge` with the judge on the fake
OpenAI-compatible server answering prose (no JSON) exits 1 under `llm.max_failed_fraction` 0, is accepted at a
tolerance that covers the share, and every judged cell of reports/j1.md shows `(n unparsable)`."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml

from flows.kit.stage import run_stage
from flows.run import j1_judge, j1_report, j1_simulate
from tests.fake_openai_server import FakeOpenAIServer
from tests.j1.envs.conftest import build, write_sources

pytestmark = pytest.mark.slow

PROSE = "这位律师的回答总体上还可以，但是有些地方不够清楚。"


def test_a_judge_answering_prose_fails_j1_judge_and_the_report_counts_its_answers(tmp_path, capsys):
    project = write_sources(tmp_path / "build", sizes={"KQ": 1, "CR": 1})
    build(project)
    with FakeOpenAIServer(reply=lambda body: PROSE) as server:
        doc = yaml.safe_load(project.params.read_text(encoding="utf-8"))
        doc["agents"] = {"oracle": {"model": "scripted/oracle"}}
        doc["judge"] = {"model": "hosted_vllm/test-judge", "api_base": server.url}
        doc["llm"]["max_failed_fraction"] = 0.0
        doc["j1"]["simulate"] = {"transcripts": 0}
        project.params.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
        args = {"agent_name": "oracle", "params_file": project.params, "paths": project.paths}
        assert run_stage("j1_simulate", j1_simulate, **args) == 0
        assert run_stage("j1_judge", j1_judge, **args) == 1
        run = project.paths.runs("j1") / "oracle"
        scores = pd.read_parquet(run / "scores.parquet")
        judged = scores[~scores.judge.isin(["rule", ""]) & (scores.value.notna() | scores.failure.notna())]
        assert len(judged) and (judged.failure == "unparsable").all()
        assert pd.read_parquet(run / "judge_usage.parquet").failure_kind.isna().all()
        assert f"{len(judged)} of {len(judged)} judge answers unparsable after the repair rounds (100.0%)" in (
            capsys.readouterr().err
        )

        doc["llm"]["max_failed_fraction"] = 1.0
        project.params.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
        assert run_stage("j1_judge", j1_judge, **args) == 0
    kwargs = {"params_file": project.params, "paths": project.paths}
    assert run_stage("j1_report", j1_report, **kwargs) == 0
    csv = pd.read_csv(project.paths.reports / "j1.csv", keep_default_na=False, na_values=[""])
    cells = csv[(csv.source == "ours") & (csv["table"] == "table3")].set_index(["scope", "metric"])
    assert cells.n_unparsable[("KQ", "I-2")] == 1 and cells.n_unparsable[("CR", "III-5")] == 1
    assert cells.n_unparsable[("KQ", "I-1")] == 0  # a rule: nothing to parse
    assert pd.isna(cells.value[("CR", "III-5")])
    main = next(
        line
        for line in (project.paths.reports / "j1.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| oracle")
    )
    assert main.count("— (1 unparsable)") >= 3  # KQ I-2, CR III-1 and III-5 at least

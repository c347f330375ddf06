"""J1's judge stage with a panel of two judges that disagree by construction (`scripted/judge_contrary` gives
10 − the proxy's pointwise score): each member's rows kept in scores_panel.parquet, their mean the score (every
pointwise value 0.5), rule values kept once; one judge writes the same scores as before."""

from __future__ import annotations

import pytest
import yaml

from flows.kit.stage import run_stage
from flows.run import j1_judge, j1_simulate
from steps.j1.eval.schemas import J1Scores, J1ScoresPanel
from steps.tables import read_table
from tests.j1.envs.conftest import build, write_sources

pytestmark = pytest.mark.slow  # runs stages end to end

A, B = "scripted/judge", "scripted/judge_contrary"
KEYS = ["instance_id", "metric", "component"]


def test_a_panel_scores_the_mean_of_its_members(tmp_path):
    sources = write_sources(tmp_path / "build")
    build(sources)

    def judge(panel: list[str] | None) -> bytes:
        params = {
            "agents": {"oracle": {"model": "scripted/oracle"}},
            "environment": {"model": "scripted/persona"},
            "judge": {"model": "scripted/judge"},
            "llm": {"cache_dir": str(tmp_path / "cache")},
            "j1": {"simulate": {"transcripts": 0}, **({"judge": panel} if panel else {})},
        }
        (tmp_path / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
        kwargs = {"agent_name": "oracle", "params_file": tmp_path / "params.yaml", "paths": sources.paths}
        if not (sources.paths.run("j1", "oracle") / "run.json").is_file():
            assert run_stage("j1_simulate", j1_simulate, **kwargs) == 0
        assert run_stage("j1_judge", j1_judge, **kwargs) == 0
        return (sources.paths.run("j1", "oracle") / "scores.parquet").read_bytes()

    run = sources.paths.run("j1", "oracle")
    single = judge(None)
    one = read_table(run / "scores.parquet", J1Scores)
    assert read_table(run / "scores_panel.parquet", J1ScoresPanel).empty

    judge([A, B])
    scores = read_table(run / "scores.parquet", J1Scores)
    members = read_table(run / "scores_panel.parquet", J1ScoresPanel)
    assert scores[KEYS].equals(one[KEYS])  # the same rows, in the same order
    asked = one.judge == A
    assert set(members.judge) == {A, B} and (members.judge.value_counts() == asked.sum()).all()
    label = f"panel(mean): {A} + {B}"
    assert (scores.judge[asked.to_numpy()] == label).all()
    kept = ~asked.to_numpy()
    assert scores[kept].reset_index(drop=True).equals(one[kept].reset_index(drop=True))  # rule values as they were
    topics = members[members.component.str.fullmatch(r"T\d+") & members.value.notna()]  # one judgement per topic
    a, b = (topics[topics.judge == j].set_index(KEYS).value for j in (A, B))
    assert len(a) > 0 and ((a + b.reindex(a.index)).round(9) == 1.0).all()  # the contrary: 10 − the proxy's score
    assert (scores.set_index(KEYS).value.reindex(a.index).round(9) == 0.5).all()
    valued = members[members.value.notna() & members.failure.isna()]
    mean = valued.groupby(KEYS).value.mean()  # the panel: the mean of its members' values, row by row
    got = scores.set_index(KEYS).value.reindex(mean.index)
    assert ((got - mean).abs() < 1e-9).all()

    assert judge(None) == single  # back to one judge: the same bytes

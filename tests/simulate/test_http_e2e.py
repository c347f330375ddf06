"""End to end through the real HTTP path: the `j1_simulate` stage with a non-scripted agent model string.

The agent is `hosted_vllm/test-model` on the OpenAI-compatible test server, scripted there with a short criminal
trial (it reads the defendant's name from its system prompt); the server also answers a 500 and a 429 first,
which the model door retries. The environment roles are the scripted persona. The run's tables, transcripts and
`jurisflow show` are checked, and so is what the server was sent: no ground truth, no call metadata.
"""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from flows.cli import app
from flows.kit.context import FlowContext
from flows.kit.stage import run_stage
from flows.run import j1_simulate
from steps.j1.envs.registry import SCENARIOS
from steps.j1.eval.failures import causes_of_rows
from steps.j1.eval.metrics.crime import predicted_charges
from steps.j1.eval.metrics.penalty import predicted_sentence
from steps.j1.eval.stages import write_transcripts
from steps.j1.extract.statutes import find_statutes
from steps.params import Params
from steps.paths import Paths
from tests.fake_openai_server import FakeOpenAIServer
from tests.j1.envs.conftest import build, write_sources

SECRET = "sk-j1-e2e-do-not-leak"
TRIAL = (
    "现在开庭。",
    "对被告人说：请核实你的身份信息。",
    "对公诉机关说：请宣读起诉书。",
    "对被告辩护人说：请发表辩护意见。",
)


def judge(body: dict) -> str:
    """A short trial: one action per turn, then a judgment naming the defendant found in the system prompt."""
    said = sum(m["role"] == "assistant" for m in body["messages"])
    if said < len(TRIAL):
        return TRIAL[said]
    name = re.search(r"被告人的信息：姓名：([^，\n]+)", body["messages"][0]["content"]).group(1)
    return (
        f"本院认为，被告人{name}以非法占有为目的，秘密窃取他人财物，数额较大，其行为已构成盗窃罪。"
        f"依照《中华人民共和国刑法》第二百六十四条的规定，判决如下：\n"
        f"被告人{name}犯盗窃罪，判处有期徒刑一年，并处罚金人民币二千元。\n<结束庭审>"
    )


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("e2e")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("J1_E2E_KEY", SECRET)
        return _run(tmp_path)


def _run(tmp_path):
    p = write_sources(tmp_path, sizes={"CR": None})
    build(p)
    with FakeOpenAIServer(reply=judge) as server:
        server.inject(("500",), ("429", 0))
        params = yaml.safe_load(p.params.read_text(encoding="utf-8"))
        params |= {
            "agents": {
                "court": {"model": "hosted_vllm/test-model", "api_base": server.url, "api_key_env": "J1_E2E_KEY"}
            },
            "j1": {"simulate": {"scenarios": ["CR"], "transcripts": 2}},
        }
        p.params.write_text(yaml.safe_dump(params, allow_unicode=True), encoding="utf-8")
        code = run_stage("j1_simulate", j1_simulate, agent_name="court", params_file=p.params, paths=p.paths)
        assert code == 0
        requests, headers = list(server.requests), list(server.headers_seen)
    truths = pd.read_parquet(p.processed / "instances.parquet").ground_truth
    return tmp_path, requests, headers, truths, p.processed


def test_a_court_dialogue_runs_through_http_with_a_real_model_string(run_dir):
    root, requests, headers, _truths, processed = run_dir
    instances = pd.read_parquet(processed / "instances.parquet").set_index("instance_id")
    turns = pd.read_parquet(root / "data/j1/runs/court/turns.parquet")
    deliverables = pd.read_parquet(root / "data/j1/runs/court/dialogues.parquet")
    assert len(deliverables) == 2 and set(deliverables.ended_by) == {"marker"}
    for _iid, d in turns[turns.kind == "utterance"].groupby("instance_id"):
        judge_turns = d[d.speaker == "judge"]
        assert set(judge_turns.model) == {"hosted_vllm/test-model"}
        addressees = [a if isinstance(a, str) else None for a in judge_turns.addressee]
        assert addressees == [None, "defendant", "procurator", "defence", None]
        assert d.speaker.tolist() == ["judge", "judge", "defendant", "judge", "procurator", "judge", "defence", "judge"]
        assert d[d.speaker != "judge"].model.unique().tolist() == ["scripted/persona"]
    for row in deliverables.to_dict("records"):  # the judgment as the judge stage parses it
        text, rows = row["deliverable"], turns[turns.instance_id == row["instance_id"]].to_dict("records")
        assert row["deliverable_kind"] == "judgment" and text.startswith("本院认为")
        assert causes_of_rows(rows, SCENARIOS["CR"]) == []
        defendant = instances.loc[row["instance_id"], "ground_truth"]["defendant"]
        sentence = predicted_sentence(text, defendant)
        assert list(predicted_charges(text, defendant)[0]) == ["盗窃"]
        assert sentence.prison_months == 12 and sentence.fine_yuan == 2000
        assert ("中华人民共和国刑法", 264) in {(s.law.strip("《》"), s.article) for _, s in find_statutes(text)[0]}
    assert len(requests) == 2 * 5 + 2  # five judge turns per trial, plus the 500 and the 429 retried
    assert all(h.get("Authorization") == f"Bearer {SECRET}" for h in headers)


def test_the_server_gets_no_ground_truth_or_metadata_and_no_artifact_holds_the_key(run_dir):
    root, requests, _, truths, _ = run_dir
    sent = json.dumps(requests, ensure_ascii=False)
    assert "metadata" not in sent and "ground_truth" not in sent
    for truth in truths:
        assert (
            truth["reasoning"][5:40] not in sent
            and f"{truth['charges'][0]}罪" not in requests[0]["messages"][0]["content"]
        )
    for path in root.rglob("*"):
        if path.is_file() and path.suffix in (".parquet", ".json", ".md", ".jsonl"):
            assert SECRET.encode() not in path.read_bytes(), path


def test_show_prints_the_dialogue_with_speakers_addressees_and_stages(run_dir, monkeypatch):
    root, *_ = run_dir
    monkeypatch.chdir(root)
    iid = pd.read_parquet(root / "data/j1/runs/court/dialogues.parquet").instance_id.iloc[0]
    result = CliRunner().invoke(app, ["show", "court", iid[-8:]], terminal_width=200)
    assert result.exit_code == 0, result.output
    for text in (
        "审判长 → 被告人",
        "被告人 → 审判长",
        "开庭审理",
        "法庭宣判",
        "hosted_vllm/test-model",
        "ended by marker",
    ):
        assert text in result.output
    assert "failure causes: none" in result.output
    # the judge stage's transcripts of the same run (stage `j1_judge` writes them with the failure causes)
    turns = pd.read_parquet(root / "data/j1/runs/court/turns.parquet")
    deliverables = pd.read_parquet(root / "data/j1/runs/court/dialogues.parquet").assign(failure_causes=[[], []])
    ctx = FlowContext(Params(), Paths())
    shown = write_transcripts(ctx, turns, deliverables, root / "transcripts", 2, agent="court", rid="r", proxy=False)
    assert shown == 2
    transcripts = list((root / "transcripts/court").glob("*.md"))
    page = transcripts[0].read_text(encoding="utf-8")
    assert len(transcripts) == 2 and "**[1] 审判长 → 被告人**" in page and "failure causes: none" in page

"""`jurisflow estimate` against hand-computed cases: LawBench with limit 1 for a priced API model (o200k_base tokens
plus OpenAI's chat overhead of 7 tokens for one user message, litellm's prices), unpriced and scripted models, and
the tally of recorded requests into rows (a request repeated by a later stage is sent once)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import tiktoken
import yaml

from flows.estimate import ASSUMED_OUTPUT_TOKENS, Report, estimate, render, tally
from flows.kit.config import load_params
from flows.kit.paths import Paths
from steps.lawbench.predict import prompt_text
from steps.lawbench.scripted import best_form
from steps.llm.standin import Sent
from tests.conftest import ROOT
from tests.helpers import write_lawbench_interim

# gpt-4o-mini in litellm's local price map (pinned with litellm): $0.15 / $0.60 per million tokens
IN, OUT = 0.15e-6, 0.60e-6


@pytest.fixture(scope="module")
def data(mirror, manifest, tmp_path_factory) -> Paths:
    """A data folder whose interim tables are what `lawbench_predict` reads."""
    paths = Paths(data=tmp_path_factory.mktemp("data"))
    write_lawbench_interim(mirror, manifest, paths.interim)
    return paths


def _params(tmp_path: Path, agents: dict, **sections):
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({"agents": agents, **sections}), encoding="utf-8")
    return load_params(path)


def test_lawbench_calls_tokens_and_cost_by_hand(tmp_path, data):
    agents = {
        "mini": {"model": "openai/gpt-4o-mini", "decoding": {"max_tokens": 100}, "limit": 1, "benchmarks": ["lawbench"]}
    }
    expected = estimate(_params(tmp_path, agents), paths=data)  # its 100 stays under LawBench's cap of 1,024
    assert expected.low is not None  # a real agent: the low figure (an oracle agent) beside the expected one
    report = expected.low
    rows = report.rows
    items = pd.read_parquet(data.interim / "lawbench_items.parquet")
    enc = tiktoken.get_encoding("o200k_base")
    assert [(r.stage, r.role) for r in rows] == [
        ("lawbench_predict@mini-zero_shot", "agent"),
        ("lawbench_predict@mini-one_shot", "agent"),
    ]
    for row, setting in zip(rows, ("zero_shot", "one_shot"), strict=True):
        first = items[(items.setting == setting) & (items.idx == 0)]
        assert row.calls == row.sent == len(first) == 20  # one item of each of the 20 tasks
        by_hand = sum(
            len(enc.encode(prompt_text(i, q))) + 7 for i, q in zip(first.instruction, first.question, strict=True)
        )
        assert row.input_tokens == by_hand
        # the oracle stand-in answers each item's reference: its tokens are the assumed output, at most the agent's
        # max_tokens (100) per reply, where a real model stops
        answers = [best_form(t, 0, a) for t, a in zip(first.task, first.answer, strict=True)]
        assert row.output_tokens == sum(min(len(enc.encode(a)), 100) for a in answers)
        assert any(len(enc.encode(a)) > 100 for a in answers)  # the cap is met
        assert row.output_bound == 20 * 100
        assert row.cost_usd == pytest.approx(by_hand * IN + row.output_tokens * OUT)
        assert row.cost_bound_usd == pytest.approx(by_hand * IN + 2000 * OUT)
    assert "agent by scripted/oracle" in report.notes[-1]  # who plays the real model's replies
    # the expected run: the same requests, each answered by a filler reply of max_tokens
    assert [(r.calls, r.input_tokens, r.output_tokens) for r in expected.rows] == [
        (r.calls, r.input_tokens, 20 * 100) for r in rows
    ]
    assert "agent by the real-model-like filler" in expected.notes[-1]
    total = render(report)[-1]
    assert total[:5] == ["total", "", "", "40", "40"]
    assert total[9] == f"${rows[0].cost_bound_usd + rows[1].cost_bound_usd:,.4f}"


def test_unpriced_and_scripted_models(tmp_path, data):
    agents = {
        "local": {
            "model": "hosted_vllm/qwen",
            "api_base": "http://127.0.0.1:9/v1",
            "limit": 1,
            "benchmarks": ["lawbench"],
        },
        "oracle": {"model": "scripted/oracle", "limit": 1, "benchmarks": ["lawbench"]},
    }
    # max_new_tokens null: LawBench sets no cap of its own and the agent sets none, so the estimate assumes one
    report = estimate(_params(tmp_path, agents, lawbench={"max_new_tokens": None}), paths=data)
    local = [r for r in report.rows if r.agent == "local"]
    assert all(r.cost_usd is None and r.output_bound == 20 * ASSUMED_OUTPUT_TOKENS for r in local)  # no price
    assert f"≤ assumes {ASSUMED_OUTPUT_TOKENS}/request" in local[0].note
    oracle = [r for r in report.rows if r.agent == "oracle"]
    assert all(r.cost_usd == 0.0 and r.output_bound == r.output_tokens for r in oracle)  # its own replies, free
    # the same prompts, but an oracle's request is keyed apart from the local model's: both are sent
    assert [r.sent for r in report.rows] == [20, 20, 20, 20]
    assert render(report)[-1][11] == "priced rows only"


def _sent(stage: str, key: str, *, model: str = "openai/gpt-4o-mini", tokens=(100, 10), max_tokens=None) -> Sent:
    return Sent(stage, "environment", "environment", model, key, tokens[0], tokens[1], max_tokens, "scripted/persona")


def test_a_request_another_stage_sent_is_not_sent_again():
    sent = [
        _sent("ucl_reference", "a"),
        _sent("ucl_reference", "b"),
        _sent("ucl_simulate@x", "a"),  # the user's first message again: the response cache answers it
        _sent("ucl_simulate@x", "c", max_tokens=50),
        _sent("ucl_simulate@x", "c", max_tokens=50),
    ]
    rows = tally(sent, {"ucl_reference": 1.0, "ucl_simulate@x": 2.0}, {"ucl_simulate@x": "x"})
    first, second = rows
    assert (first.calls, first.sent, first.input_tokens, first.output_bound) == (2, 2, 200, 2 * ASSUMED_OUTPUT_TOKENS)
    assert (second.calls, second.sent, second.input_tokens, second.output_bound) == (3, 1, 100, 50)
    assert second.agent == "x" and second.seconds == 2.0
    assert second.cost_usd == pytest.approx(100 * IN + 10 * OUT)
    assert second.cost_bound_usd == pytest.approx(100 * IN + 50 * OUT)
    assert render(Report(rows, {"ucl_reference": 1.0, "ucl_simulate@x": 2.0}))[-1][3:5] == ["5", "3"]


def test_the_estimate_starts_no_prefect(tmp_path, data):
    """Offline and read-only: the stages' steps run without Prefect (litellm counts the tokens)."""
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({"agents": {"o": {"model": "scripted/oracle", "limit": 1}}}), encoding="utf-8")
    code = (
        "import sys; from pathlib import Path; from flows.kit.config import load_params; from flows.kit.paths "
        "import Paths; from flows.estimate import estimate; "
        f"r = estimate(load_params(Path({str(path)!r})), benchmarks=['lawbench'], "
        f"paths=Paths(data=Path({str(data.data)!r}))); print(len(r.sent), 'prefect' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["40", "False"]


def test_bad_input_is_one_line(tmp_path, monkeypatch, capsys):
    from flows.estimate import main

    monkeypatch.chdir(tmp_path)  # no item tables here
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({"agents": {"o": {"model": "scripted/oracle"}}}), encoding="utf-8")
    assert main(path, ["nobody"], None) == 1
    assert main(path, None, "lawbench,lawbnch") == 1
    assert main(path, None, "lawbench") == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith(f"error: unknown agent(s) nobody; {path} lists: o (with --model, the estimate of")
    assert lines[1] == "error: unknown benchmark(s) lawbnch; expected j1, lawbench, mile, plawbench, ucl"
    # nothing has run here, so the estimate would run ingest first, which reads the pinned sources: none here
    assert lines[2].startswith("error: [Errno 2] No such file or directory: 'sources.yaml'") and len(lines) == 3
    assert "run `dvc repro` of those first" in lines[2]


def test_a_fresh_clone_estimates_after_running_the_missing_data_stages(tmp_path):
    """On a fresh clone nothing has run: the stages whose outputs the model stages read are estimated first (in the
    scratch folder); once their outputs exist they are not. The declared paths are looked up where `Paths` puts
    them (here a data folder that is not called data)."""
    from flows.estimate import estimated_stages, on_disk

    paths = Paths(data=tmp_path / "data7", reports=tmp_path / "out")
    fresh = [s.name for s in estimated_stages(["lawbench"], paths)]
    assert fresh[0] == "ingest" and "lawbench_predict" in fresh
    assert "ingest" not in [s.name for s in estimated_stages(["lawbench"])]  # no paths: the model stages only
    ingest = next(s for s in estimated_stages(["lawbench"], paths) if s.name == "ingest")
    for written in ingest.writes:
        on_disk(written, paths).parent.mkdir(parents=True, exist_ok=True)
        on_disk(written, paths).touch()
    assert [s.name for s in estimated_stages(["lawbench"], paths)] == ["lawbench_predict"]
    assert on_disk("reports/lawbench.csv", paths) == tmp_path / "out/lawbench.csv"
    assert on_disk("sources.yaml", paths) == tmp_path / "sources.yaml"


def test_each_repeat_of_an_agent_is_estimated_as_its_own_calls(tmp_path, data):
    agent = {"model": "openai/gpt-4o-mini", "decoding": {"max_tokens": 100}, "limit": 1, "benchmarks": ["lawbench"]}
    once = estimate(_params(tmp_path, {"mini": agent}), paths=data).rows
    thrice = estimate(_params(tmp_path, {"mini": agent | {"repeats": 3}}), paths=data).rows
    assert [r.stage for r in thrice] == [r.stage for r in once]
    # three runs of the same 20 prompts: three times the calls, each sent (its own cache key), three times the tokens
    assert [(r.calls, r.sent, r.input_tokens) for r in thrice] == [
        (3 * r.calls, 3 * r.sent, 3 * r.input_tokens) for r in once
    ]

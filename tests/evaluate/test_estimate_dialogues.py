"""The estimate of a real agent's dialogues runs them as a real model does, and gives a wall time.

A real model (here the fake server, answering every turn with a reply of max_tokens tokens that never covers the
user's need, as the small real models of reports/real_model.md did) keeps a UCL-Bench dialogue going to its cap of
exchanges. The estimate's expected figure (the real-model-like filler, no `stand_ins` given) must do the same:
the same number of calls, and prompt and completion tokens within ±25 % of the run's usage table; its low figure
(`scripted/oracle`) ends earlier. With a calibration record the estimate prints a wall time per benchmark; without
one it says to run `jurisflow models check`."""

from __future__ import annotations

import functools
from pathlib import Path

import pandas as pd
import pytest
import tiktoken
import yaml

from flows.estimate import NO_WALL, by_benchmark, estimate, show, targets, up_to_date
from flows.kit.config import load_params
from flows.kit.paths import Paths
from flows.kit.stage import run_stage
from flows.run import ucl_reference, ucl_simulate
from steps.llm.calibration import Calibration, calibration_key
from steps.sources import Fetched
from steps.tables import write_table
from steps.ucl.sources import Ucl, load_ucl
from tests.fake_openai_server import FakeOpenAIServer

MAX_TOKENS = 96
EXCHANGES = 3
TASKS = ["Charge Prediction", "Legal Issue Consultation"]
RAMBLE = "您好，关于这个情况，我们需要综合考虑多方面的因素，具体还要看实际情况如何发展，请您耐心等待进一步的沟通。"


@functools.cache
def _o200k() -> tiktoken.Encoding:
    import litellm.litellm_core_utils.default_encoding  # noqa: F401  (tiktoken reads the encodings litellm ships)

    return tiktoken.get_encoding("o200k_base")


def o200k(text: str) -> int:
    return len(_o200k().encode(text, disallowed_special=()))


def long_reply(body: dict) -> str:
    """A reply of max_tokens tokens (as a real model cut at max_tokens) that answers nothing in particular."""
    tokens = _o200k().encode(RAMBLE * 20, disallowed_special=())[: int(body.get("max_tokens") or MAX_TOKENS)]
    return _o200k().decode(tokens).replace("\ufffd", "")


@pytest.fixture(scope="module")
def interim(mirror, manifest, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("data") / "interim"
    folder.mkdir(parents=True)
    ucl = load_ucl([Fetched(f, mirror / f.path) for f in manifest.for_dataset("ucl")])
    write_table(ucl, folder / "ucl.parquet", Ucl, table="ucl")
    return folder


@pytest.fixture(scope="module")
def run(interim, tmp_path_factory):
    """A UCL-Bench dialogue run of a real agent on the fake server: its params file, paths and server url."""
    tmp_path = tmp_path_factory.mktemp("run")
    with FakeOpenAIServer(reply=long_reply, tokens=o200k) as server:
        agents = {
            "mini": {
                "model": "openai/gpt-4o-mini",
                "api_base": server.url,
                "limit": 1,
                "benchmarks": ["ucl"],
                "concurrency": 2,
                "decoding": {"max_tokens": MAX_TOKENS},
            }
        }
        doc = {"agents": agents, "llm": {"cache_dir": str(tmp_path / "cache")}, "ucl": {"tasks": TASKS}}
        path = tmp_path / "params.yaml"
        path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
        paths = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=tmp_path / "cache")
        paths.data.mkdir()
        paths.interim.symlink_to(interim)
        assert run_stage("ucl_simulate", ucl_simulate, agent_name="mini", params_file=path, paths=paths) == 0
        assert run_stage("ucl_reference", ucl_reference, params_file=path, paths=paths) == 0  # shared, scripted
        return path, paths, server.url


def test_a_real_agents_dialogues_run_to_their_cap_in_the_estimate_as_in_the_run(run):
    path, paths, _ = run
    usage = pd.read_parquet(paths.run("ucl", "mini") / "usage.parquet")
    dialogues = pd.read_parquet(paths.run("ucl", "mini") / "dialogues.parquet")
    assert set(dialogues.ended_by) == {"max_turns"}  # the run: every dialogue to its cap
    report = estimate(load_params(path), benchmarks=["ucl"], paths=paths)
    stage = "ucl_simulate@mini"
    for role, rows in usage.groupby("purpose"):
        sent = [s for s in report.sent if s.stage == stage and s.purpose == role]
        assert len(sent) == len(rows), (role, len(sent), len(rows))  # the same calls
        for figure, estimated in (
            ("prompt_tokens", sum(s.input_tokens for s in sent)),
            ("completion_tokens", sum(s.output_tokens for s in sent)),
        ):
            measured = int(rows[figure].sum())
            assert abs(estimated - measured) <= 0.25 * measured, (role, figure, estimated, measured)
    agent = next(r for r in report.rows if r.stage == stage and r.role == "agent")
    assert agent.calls == EXCHANGES * len(TASKS)
    assert report.low is not None  # the oracle agent ends its dialogues as early as it can: fewer calls
    low = next(r for r in report.low.rows if r.stage == stage and r.role == "agent")
    assert low.calls < agent.calls
    row = by_benchmark(report)[0]
    assert (
        row[0] == "ucl" and row[2] == f"{sum(r.calls for r in report.low.rows)} – {sum(r.calls for r in report.rows)}"
    )


def test_the_wall_time_line(run, capsys):
    path, paths, url = run
    params = load_params(path)
    report = estimate(params, benchmarks=["ucl"], paths=paths)
    assert report.wall["ucl_simulate@mini"] is None
    show(report)
    out = capsys.readouterr().out.replace("\n", " ")
    assert NO_WALL in " ".join(out.split())
    # 1 s per call whatever its tokens (no prefill or generation cost to speak of), 2 slots, 2 dialogues of 3
    # agent calls each, the user scripted: the dialogues run side by side, 3 calls one after another = 3 s
    record = Calibration("openai/gpt-4o-mini", url, 1.0, 1.0, 1e12, 1e12, 1.0, 3, "t")
    report = estimate(
        params, benchmarks=["ucl"], paths=paths, calibrations={calibration_key(record.model, url): record}
    )
    assert report.wall["ucl_simulate@mini"] == pytest.approx(3.0, abs=0.05)
    show(report)
    out = " ".join(capsys.readouterr().out.split())
    assert "wall time: from `jurisflow models check`'s measured throughput" in out
    assert "3 s" in out
    # twice the server's count: prompt tokens scaled by the record's ratio
    doubled = Calibration("openai/gpt-4o-mini", url, 2.0, 1.0, 1e12, 1e12, 1.0, 3, "t")
    scaled = estimate(
        params, benchmarks=["ucl"], paths=paths, calibrations={calibration_key(doubled.model, url): doubled}
    )
    agent = [r.input_tokens for r in report.rows if r.model_name == "mini"]
    assert [r.input_tokens for r in scaled.rows if r.model_name == "mini"] == pytest.approx(
        [2 * t for t in agent], rel=0.01
    )


def test_shared_stages_dvc_finds_up_to_date_are_not_run(run, monkeypatch, tmp_path):
    path, paths, _ = run
    params = load_params(path)
    planned = [t for _, t, _, _ in targets(params, None, ["ucl"])]
    assert planned == ["ucl_reference", "ucl_simulate@mini", "ucl_judge@mini"]
    report = estimate(params, benchmarks=["ucl"], paths=paths, up_to_date=["ucl_reference"])
    assert report.skipped == ["ucl_reference"] and "ucl_reference" not in report.seconds
    assert {s.stage for s in report.sent} == {"ucl_simulate@mini", "ucl_judge@mini"}  # it reads the real reference
    assert by_benchmark(report)[0][1] == "2 (+1 up to date, not run)"
    # which are up to date: `dvc status` of the shared ones only, in the project of the params file
    import flows.estimate

    asked: list[list[str]] = []
    monkeypatch.setattr(flows.estimate, "dvc_stale", lambda stages: asked.append(stages) or [])
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dvc.yaml").write_text("stages: {}\n", encoding="utf-8")
    both = targets(params, None, ["ucl"])
    assert up_to_date(tmp_path / "params.yaml", both) == ["ucl_reference"] and asked == [["ucl_reference"]]
    monkeypatch.setattr(flows.estimate, "dvc_stale", lambda stages: ["ucl_reference"])
    assert up_to_date(tmp_path / "params.yaml", both) == []
    monkeypatch.setattr(flows.estimate, "dvc_stale", lambda stages: None)  # DVC could not tell
    assert up_to_date(tmp_path / "params.yaml", both) == []
    assert up_to_date(path, both) == []  # no dvc.yaml there: nothing is taken as up to date


def test_dvc_stale_is_what_dvc_status_says(tmp_path, monkeypatch):
    import subprocess

    from flows.dvc_cli import command
    from flows.estimate import dvc_stale

    monkeypatch.chdir(tmp_path)
    (tmp_path / ".dvc").mkdir()
    (tmp_path / ".dvc" / "config").write_text("[core]\n    no_scm = true\n    analytics = false\n", encoding="utf-8")
    (tmp_path / "dvc.yaml").write_text(
        "stages:\n  done: {cmd: echo a > a.txt, outs: [a.txt]}\n  todo: {cmd: echo b > b.txt, outs: [b.txt]}\n",
        encoding="utf-8",
    )
    subprocess.run(command("repro", "done"), check=True, capture_output=True)
    assert dvc_stale(["done", "todo"]) == ["todo"]
    assert dvc_stale(["no_such_stage"]) is None


def test_a_judges_measured_repair_rate_adds_its_repair_rounds(run, capsys):
    """A real judge (one repair round per verdict here) with `models check`'s repair rate r: of the N first answers
    of the judge stage, ⌊N·r⌋ fail and each gets one repair round, so the stage's judge calls are N + ⌊N·r⌋ (r = 1:
    twice N, as SmolLM2-135M's judge in `make smoke-real`); the agents' calls do not change, and the output says
    where the rate came from."""
    path, paths, url = run
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    doc["judge"] = {"model": "openai/gpt-4o-mini", "api_base": url, "decoding": {"max_tokens": 64}}
    doc["ucl"]["judge_retries"] = 1
    doc["ucl"]["judge_probes"] = {"sample": 0}  # the judge's own calls only: probes re-ask only readable answers
    params_file = path.with_name("params-judged.yaml")
    params_file.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    params = load_params(params_file)

    def judged(rate: float | None) -> tuple[list, object]:
        record = Calibration("openai/gpt-4o-mini", url, 1.0, 1.0, 1e12, 1e12, 1.0, 3, "t", rate, 4 if rate else 0)
        report = estimate(
            params, benchmarks=["ucl"], paths=paths, calibrations={calibration_key(record.model, url): record}
        )
        return [s for s in report.sent if s.stage == "ucl_judge@mini" and s.purpose == "judge"], report

    first, plain = judged(None)
    n = len(first)
    assert n >= 4 and all(s.replies == 0 for s in first)  # no repair round without a rate
    for rate, extra in ((1.0, n), (0.5, n // 2), (0.25, n // 4)):
        calls, report = judged(rate)
        assert len(calls) == n + extra, (rate, len(calls), n)
        assert sum(s.replies == 1 for s in calls) == extra  # the repair rounds, each holding the bad answer
        assert sum(s.output_tokens for s in calls if s.stand_in.startswith("unparsable")) >= 64 * extra
        agents = [s for s in report.sent if s.purpose == "agent"]
        assert len(agents) == len([s for s in plain.sent if s.purpose == "agent"])
    show(report)
    out = " ".join(capsys.readouterr().out.split())
    assert f"judge openai/gpt-4o-mini @ {url}: repair rate 0.25 (1 of 4 judge probe answers unreadable" in out
    show(plain)
    out = " ".join(capsys.readouterr().out.split())
    assert f"judge openai/gpt-4o-mini @ {url}: no measured repair rate" in out

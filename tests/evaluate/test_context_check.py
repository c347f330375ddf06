"""Context limits are known before the first call (issue 37, item 2): `jurisflow estimate`, `eval --dry-run` and
`models check` ask each server for its context size and name the items whose longest request (the estimate's prompt
tokens + max_tokens) would not fit; against the test server reporting a small context as llama.cpp and vLLM do."""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

import pandas as pd
import pytest
import tiktoken
import yaml
from typer.testing import CliRunner

from flows.cli import app
from flows.context_check import Servers, context_lines
from flows.estimate import estimate
from flows.kit.config import load_params
from flows.kit.paths import Paths
from flows.kit.stage import run_stage
from flows.models_check import models_check
from flows.run import lawbench_predict
from steps.llm.context import at_most, may_overflow, overflows
from steps.llm.standin import Sent
from steps.llm.vllm import ServerLimits
from tests.conftest import ROOT
from tests.fake_openai_server import FakeOpenAIServer
from tests.helpers import write_lawbench_interim

BASE = "http://127.0.0.1:9/v1"


def _sent(stage: str, item: str, tokens: int, max_tokens: int | None = 64, **more) -> Sent:
    return Sent(
        stage, "agent", "local", "openai/m", f"k-{item}-{tokens}", tokens, 5, max_tokens, "o", False, item, BASE, **more
    )


def test_the_longest_request_of_each_item_over_the_context_is_named():
    sent = [
        _sent("s", "a", 400),  # 464 fits 512
        _sent("s", "b", 460),  # 524 does not
        _sent("s", "b", 500),  # a longer turn of the same item: the item is named once, with its longest request
        _sent("s", "c", 500, None),  # no max_tokens: the prompt alone, and it fits
        Sent("s", "agent", "api", "openai/gpt-4o", "k", 10_000, 5, 64, "o", False, "d", ""),  # no server: unchecked
    ]
    found = overflows(sent, lambda base, model: 512 if base == BASE else None)
    assert [(o.item, o.prompt_tokens, o.requests, o.needed) for o in found] == [("b", 500, 2, 564)]
    assert found[0].line() == "s  b  agent local: 500 prompt + 64 max_tokens = 564 > context 512 (2 requests)"
    assert overflows(sent, lambda base, model: None) == []  # a server that reports no context: nothing to say


def test_a_dialogue_whose_replies_ran_to_max_tokens_may_overflow():
    turn = _sent("d", "x", 300, replies=3, reply_tokens=30)  # 364 as the stand-ins answered; 300 - 30 + 3 × 64 + 64
    assert at_most(turn) == 526
    assert may_overflow([turn], lambda base, model: 512) == {"d": 1}
    assert may_overflow([turn], lambda base, model: 600) == {}


def test_the_lines_say_each_server_s_context_and_what_to_change():
    limits = ServerLimits(512, 2, "llama.cpp http://127.0.0.1:9/props")
    lines, found = context_lines([_sent("s", "b", 500)], Servers(lambda base, model: limits))
    assert lines[0].startswith("context check, before any call (token counts are approximate")
    assert lines[1] == f"  openai/m at {BASE}: context 512 tokens (llama.cpp http://127.0.0.1:9/props)"
    assert "1 items would overflow" in lines[2] and lines[3] == f"    {found[0].line()}"
    assert "--ctx-size" in lines[-1] and "--max-model-len" in lines[-1] and "--limit" in lines[-1]
    quiet = ServerLimits(source="no answer")
    lines, found = context_lines([_sent("s", "b", 500)], Servers(lambda base, model: quiet))
    assert found == [] and "reports no context size: not checked" in lines[1] and len(lines) == 2


# ------------------------------------------------------------------ against the test server
@pytest.fixture(autouse=True)
def wide_output(monkeypatch) -> None:
    """The estimate's tables at the width of piped output, whatever COLUMNS the caller has."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture(scope="module")
def project(mirror, manifest, tmp_path_factory) -> Path:
    """A project folder with the shipped dvc.yaml and params.yaml and the item tables LawBench's stages read."""
    dest = tmp_path_factory.mktemp("project")
    shutil.copyfile(ROOT / "dvc.yaml", dest / "dvc.yaml")
    shutil.copyfile(ROOT / "params.yaml", dest / "params.yaml")
    write_lawbench_interim(mirror, manifest, dest / "data" / "interim")
    return dest


@functools.cache
def _o200k() -> tiktoken.Encoding:
    import litellm.litellm_core_utils.default_encoding  # noqa: F401  (tiktoken reads the encodings litellm ships)

    return tiktoken.get_encoding("o200k_base")


def o200k(text: str) -> int:
    return len(_o200k().encode(text, disallowed_special=()))


def _named(output: str) -> set[str]:
    """The items an output's context check names: `stage  item  role model: …` lines."""
    return {line.split()[1] for line in output.splitlines() if line.startswith("    lawbench_predict@")}


def test_dry_run_names_the_items_that_would_overflow_and_sends_nothing(project, monkeypatch):
    monkeypatch.chdir(project)
    args = ["eval", "--agent", "local", "--model", "openai/smollm2-135m", "--benchmarks", "lawbench", "--limit", "1"]
    args += ["--max-tokens", "64", "--dry-run"]
    with FakeOpenAIServer(models=("smollm2-135m",), owned_by="llamacpp", context_size=512) as server:
        done = CliRunner().invoke(app, [*args, "--api-base", server.url])
        requests = server.count
    out = done.output
    assert done.exit_code == 0, out[-3000:]
    assert requests == 0
    assert "context 512 tokens (llama.cpp" in out
    named = _named(out)
    assert named and all(item.startswith(("zero_shot/", "one_shot/")) for item in named)
    lines = [line for line in out.splitlines() if line.startswith("    lawbench_predict@")]
    assert all(" agent local: " in line and "+ 64 max_tokens = " in line and "> context 512" in line for line in lines)
    assert f"{len(named)} items would overflow" in out
    with FakeOpenAIServer(models=("smollm2-135m",), owned_by="llamacpp", context_size=32_768) as server:
        done = CliRunner().invoke(app, [*args, "--api-base", server.url])
    assert done.exit_code == 0 and "  no item would overflow" in done.output and not _named(done.output)


def test_the_estimate_names_exactly_the_items_the_server_refuses(project, tmp_path, capsys):
    """vLLM's rule (prompt + max_tokens over max_model_len is a 400) and OpenAI's token count on both sides: the
    items the estimate names are the ones the run's calls fail on, as context_exceeded."""
    with FakeOpenAIServer(models=("gpt-4o-mini",), context_size=512, context_style="vllm", tokens=o200k) as server:
        agent = {"model": "openai/gpt-4o-mini", "api_base": server.url, "limit": 1, "decoding": {"max_tokens": 64}}
        doc = {"agents": {"mini": agent}, "llm": {"cache_dir": str(tmp_path / "cache")}}
        path = tmp_path / "params.yaml"
        path.write_text(yaml.safe_dump(doc), encoding="utf-8")
        paths = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=tmp_path / "cache")
        paths.data.mkdir()
        paths.interim.symlink_to(project / "data" / "interim")
        code = run_stage(
            "lawbench_predict", lawbench_predict, agent_name="mini", setting="one_shot", params_file=path, paths=paths
        )
        report = estimate(load_params(path), benchmarks=["lawbench"], paths=paths)
        sent = [s for s in report.sent if s.stage == "lawbench_predict@mini-one_shot"]
        lines, found = context_lines(sent)
    assert code == 1  # single-turn items that do not fit are failed calls: the stage fails
    err = capsys.readouterr().err
    assert "context_exceeded: a rerun cannot fix it" in err
    predictions = pd.read_parquet(paths.run("lawbench", "mini", "one_shot") / "predictions.parquet")
    failed = predictions[predictions.failure_kind == "context_exceeded"]
    refused = {f"{r.setting}/{r.task}/{r.idx}" for r in failed.itertuples()}  # LawBench's item ids
    assert refused and {o.item for o in found} == refused
    assert f"{len(refused)} items would overflow" in "\n".join(lines)


def test_models_check_names_the_items_that_would_overflow(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    with FakeOpenAIServer(models=("smollm2-135m",), owned_by="llamacpp", context_size=512) as server:
        text = (project / "params.yaml").read_text(encoding="utf-8")
        doc = yaml.safe_load(text)
        doc["agents"] = {"local": {"model": "openai/smollm2-135m", "api_base": server.url, "limit": 1}}
        doc["agents"]["local"]["benchmarks"] = ["lawbench"]
        doc["agents"]["local"]["decoding"] = {"max_tokens": 64}
        doc["runs"] = {b: (["local"] if b == "lawbench" else []) for b in doc["runs"]}
        doc["llm"]["cache_dir"] = str(project / ".cache" / "models-check")
        params = project / "params-check.yaml"
        params.write_text(yaml.safe_dump(doc), encoding="utf-8")
        summary = models_check(params, context=True)
    assert summary == "4 models answered, 0 failed"  # the agent, the environment, the judge, UCL's reference
    err = capsys.readouterr().err
    assert "context 512 tokens (llama.cpp" in err and "items would overflow" in err
    assert _named(err)


def test_the_check_before_a_run_says_in_one_line_why_it_cannot_check(tmp_path, monkeypatch):
    from flows.context_check import check_before_run

    monkeypatch.chdir(tmp_path)  # no item tables here
    said: list[str] = []
    with FakeOpenAIServer(models=("smollm2-135m",), context_size=512) as server:
        agent = {"model": "openai/smollm2-135m", "api_base": server.url, "benchmarks": ["lawbench"]}
        (tmp_path / "params.yaml").write_text(yaml.safe_dump({"agents": {"local": agent}}), encoding="utf-8")
        params = load_params(tmp_path / "params.yaml")
        assert check_before_run(params, ["local"], ["lawbench"], said.append) == []
    assert len(said) == 1 and said[0].startswith("context check skipped: ") and "dvc repro" in said[0]
    said.clear()
    with FakeOpenAIServer(models=("smollm2-135m",)) as server:  # reports no context: no estimate is run
        agent["api_base"] = server.url
        (tmp_path / "params.yaml").write_text(yaml.safe_dump({"agents": {"local": agent}}), encoding="utf-8")
        assert check_before_run(load_params(tmp_path / "params.yaml"), ["local"], ["lawbench"], said.append) == []
    assert len(said) == 1 and said[0].startswith("context check: no server reports its context size (")

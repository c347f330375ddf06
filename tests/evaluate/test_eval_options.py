"""`jurisflow eval` as a one-liner (issue 37, item 1): where each option lands in params.yaml (the agent's entry, the
shared roles, `llm`) with every other byte kept, the roles printed first with their stand-ins marked, `--dry-run`
(the change, the plan and the estimate; nothing sent to a model, nothing written), and `jurisflow estimate` of an
agent params.yaml does not list yet. Unit and stage tests: no stage runs here."""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from flows.cli import app
from flows.estimate import main as estimate_main
from flows.evaluate import Settings, register, roles_text
from flows.kit.config import ParamsError, load_params
from tests.conftest import ROOT
from tests.fake_openai_server import FakeOpenAIServer
from tests.helpers import write_lawbench_interim

SHIPPED = (ROOT / "params.yaml").read_text(encoding="utf-8")


def _file(tmp_path: Path, text: str = SHIPPED) -> Path:
    path = tmp_path / "params.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _changed(old: str, new: str) -> tuple[list[str], list[str]]:
    """The lines a rewrite removed and added."""
    diff = list(difflib.ndiff(old.splitlines(), new.splitlines()))
    return [d[2:] for d in diff if d.startswith("- ")], [d[2:] for d in diff if d.startswith("+ ")]


def test_each_option_lands_in_its_place_and_nothing_else_changes(tmp_path):
    path = _file(tmp_path)
    settings = Settings(
        api_base="http://127.0.0.1:8088/v1",
        benchmarks=["lawbench", "ucl"],
        limit=3,
        max_tokens=256,
        temperature=0.2,
        concurrency=2,
        max_failed_fraction=0.1,
        judge="openai/smollm2-135m",
        environment="openai/gpt-4o-mini",
    )
    notes = register(path, "local", "openai/smollm2-135m", settings)
    text = path.read_text(encoding="utf-8")
    raw = yaml.safe_load(text)
    assert raw["agents"]["local"] == {
        "model": "openai/smollm2-135m",
        "api_base": "http://127.0.0.1:8088/v1",
        "benchmarks": ["lawbench", "ucl"],
        "limit": 3,
        "decoding": {"max_tokens": 256, "temperature": 0.2},
        "concurrency": 2,
    }
    # the judge is the agent's own model: it is reached where the agent is, with the same bound
    assert raw["judge"] == {"model": "openai/smollm2-135m", "api_base": "http://127.0.0.1:8088/v1", "concurrency": 2}
    assert raw["environment"] == {"model": "openai/gpt-4o-mini"}  # another model: its provider's API
    assert raw["llm"]["max_failed_fraction"] == 0.1
    assert [n.split(":")[0] for n in notes] == ["environment", "judge", "llm.max_failed_fraction"]
    # every other line is as it was: comments, `null`s, quoting, the other agents
    removed, added = _changed(SHIPPED, text)
    assert removed == [
        '  lawbench: [oracle, "null"]',
        '  ucl: [oracle, "null"]',
        "  model: scripted/persona",
        "  model: scripted/judge",
        "  max_failed_fraction: 0.0",
    ]
    assert "  budget_usd: null" in text and "  limit: null" in text
    assert len(added) == len(removed) + 7 + 2  # the agent's entry (7 lines) and the judge's endpoint (2)
    # the new entry goes under the last agent, above the comments that follow the agents
    assert text.index("  local:\n") < text.index("  # An agent takes part in every benchmark")
    load_params(path)


def test_an_eval_that_changes_nothing_leaves_the_file_byte_identical(tmp_path):
    path = _file(tmp_path)
    settings = Settings(api_base="http://127.0.0.1:8088/v1", benchmarks=["lawbench"], max_tokens=64, concurrency=2)
    register(path, "local", "openai/smollm2-135m", settings)
    once = path.read_bytes()
    assert register(path, "local", "openai/smollm2-135m", settings) == []
    assert path.read_bytes() == once
    # an option left out keeps the entry's value (the limit excepted: left out, the agent has none)
    register(path, "local", "openai/smollm2-135m", Settings(benchmarks=["lawbench"], temperature=0.5))
    entry = yaml.safe_load(path.read_text(encoding="utf-8"))["agents"]["local"]
    assert entry["decoding"] == {"max_tokens": 64, "temperature": 0.5} and entry["concurrency"] == 2
    assert entry["api_base"] == "http://127.0.0.1:8088/v1"


def test_the_first_agent_of_an_empty_section_is_written_as_a_block(tmp_path):
    path = _file(tmp_path, "agents: {}\nlawbench:\n  limit: null\n")
    register(path, "probe", "scripted/oracle", Settings(benchmarks=["lawbench"], max_tokens=8))
    text = path.read_text(encoding="utf-8")
    assert text.startswith("agents:\n  probe:\n    model: scripted/oracle\n    benchmarks: [lawbench]\n")
    assert "    decoding: {max_tokens: 8}\n" in text and "  limit: null\n" in text


def test_a_new_role_model_drops_the_old_endpoint_and_keeps_its_decoding(tmp_path):
    base = SHIPPED.replace(
        "judge:\n  model: scripted/judge\n",
        "judge:\n  model: openai/old-judge\n  api_base: http://old:8000/v1\n  decoding: {max_tokens: 512}\n",
    )
    path = _file(tmp_path, base)
    register(path, "probe", "scripted/oracle", Settings(benchmarks=["ucl"], judge="openai/gpt-4o-mini"))
    assert yaml.safe_load(path.read_text(encoding="utf-8"))["judge"] == {
        "model": "openai/gpt-4o-mini",
        "decoding": {"max_tokens": 512},
    }


def test_a_bad_option_is_refused_before_anything_is_written(tmp_path):
    path = _file(tmp_path)
    with pytest.raises(ParamsError, match=r"judge\.model"):
        register(path, "probe", "scripted/oracle", Settings(judge="nosuchprovider/x"))
    assert path.read_text(encoding="utf-8") == SHIPPED


def test_the_roles_are_listed_with_their_stand_ins(tmp_path):
    path = _file(tmp_path)
    register(path, "gpt", "openai/gpt-4o-mini", Settings(judge="openai/gpt-4o-mini"))
    params = load_params(path)
    assert roles_text(params, "gpt", ["lawbench"]) == ["agent gpt: openai/gpt-4o-mini"]  # LawBench calls no role
    assert roles_text(params, "gpt", ["ucl"]) == [
        "agent gpt: openai/gpt-4o-mini",
        "environment (ucl): scripted/persona (stand-in: numbers are not the paper's)",
        "judge (ucl): openai/gpt-4o-mini",
        "ucl_reference (scripted_null): scripted/null (stand-in: numbers are not the paper's)",
    ]


# ------------------------------------------------------------------ --dry-run and the estimate of a new agent
@pytest.fixture(autouse=True)
def wide_output(monkeypatch) -> None:
    """The estimate's tables at the width of piped output (flows/terminal.py), whatever COLUMNS the caller has (make
    exports its terminal's): at 80 columns rich folds the stage names these tests look for."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture(scope="module")
def project(mirror, manifest, tmp_path_factory) -> Path:
    """A project folder with the shipped dvc.yaml and params.yaml and the item tables LawBench's stages read."""
    dest = tmp_path_factory.mktemp("project")
    shutil.copyfile(ROOT / "dvc.yaml", dest / "dvc.yaml")
    _file(dest)
    write_lawbench_interim(mirror, manifest, dest / "data" / "interim")
    return dest


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_dry_run_prints_the_change_the_plan_and_the_estimate_and_sends_and_writes_nothing(project, monkeypatch):
    monkeypatch.chdir(project)
    before = _snapshot(project)
    props = {"default_generation_settings": {"n_ctx": 4096}, "total_slots": 2}
    with FakeOpenAIServer(models=("smollm2-135m",), owned_by="llamacpp", props=props) as server:
        args = ["eval", "--agent", "local", "--model", "openai/smollm2-135m", "--api-base", server.url]
        args += ["--benchmarks", "lawbench", "--limit", "1", "--max-tokens", "64", "--temperature", "0"]
        args += ["--max-failed-fraction", "0.2", "--judge", "scripted/judge", "--dry-run"]
        done = CliRunner().invoke(app, args)
        requests = server.count
    out = done.output
    assert done.exit_code == 0, out[-3000:]
    assert requests == 0  # the probe reads /props; no model call
    assert _snapshot(project) == before  # params.yaml byte-identical, and nothing else written
    lines = out.splitlines()
    assert lines[0] == "agent local: openai/smollm2-135m"  # the roles first (LawBench calls none)
    assert "context 4,096 tokens, 2 parallel slots" in lines[1] and lines[1].endswith("(the server's parallel slots)")
    assert "llm.max_failed_fraction: 0.0 → 0.2" in out
    for added in ("+  local:", "+    decoding: {max_tokens: 64, temperature: 0.0}", "+    concurrency: 2"):
        assert added in lines
    assert '+  lawbench: [oracle, "null", local]' in lines
    assert not [line for line in lines if line.startswith(("+", "-")) and "judge" in line]  # the judge it already has
    plan = next(line for line in lines if line.startswith("eval local: "))
    stages = "ingest lawbench_score lawbench_predict@local-one_shot lawbench_predict@local-zero_shot"
    assert f"lawbench: {stages} then lawbench_report; then html_report" in plan
    assert "@oracle" not in plan
    assert "lawbench_predict@local-zero_shot" in out.split(plan)[1]  # the estimate's table
    assert lines[-1] == "dry run: no model was called and nothing was written (params.yaml is unchanged)"


def test_the_estimate_of_an_agent_params_yaml_does_not_list(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    path = project / "params.yaml"
    settings = Settings(max_tokens=100, limit=1)
    assert estimate_main(path, ["mini"], "lawbench", "openai/gpt-4o-mini", settings) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if "lawbench_predict@mini-" in line]
    assert len(rows) == 2 and all(" 20 " in r and " 2,000 " in r for r in rows)  # 20 items, ≤ 100 tokens each
    assert path.read_text(encoding="utf-8") == SHIPPED
    # the same through the command line, and its refusals
    runner = CliRunner()
    args = ["estimate", "--agent", "mini", "--model", "openai/gpt-4o-mini", "--benchmarks", "lawbench"]
    done = runner.invoke(app, [*args, "--limit", "1", "--max-tokens", "100"])
    assert done.exit_code == 0 and "lawbench_predict@mini-one_shot" in done.output
    done = runner.invoke(app, ["estimate", "--agent", "mini", "--max-tokens", "100"])
    assert done.exit_code == 1 and "give --model (and one --agent) too" in done.output
    done = runner.invoke(app, ["estimate", "--agent", "a", "--agent", "b", "--model", "openai/gpt-4o-mini"])
    assert done.exit_code == 1 and "give one --agent" in done.output
    assert path.read_text(encoding="utf-8") == SHIPPED


@pytest.mark.parametrize(
    "option",
    [
        ["--max-failed-fraction", "1.5"],
        ["--temperature", "-1"],
        ["--concurrency", "0"],
        ["--max-tokens", "0"],
        ["--repeats", "0"],
    ],
)
def test_out_of_range_options_are_refused_by_the_parser(tmp_path, monkeypatch, option):
    monkeypatch.chdir(tmp_path)
    path = _file(tmp_path)
    done = CliRunner().invoke(app, ["eval", "--agent", "a", "--model", "scripted/oracle", *option, "--dry-run"])
    assert done.exit_code == 2 and option[0] in done.output
    assert path.read_text(encoding="utf-8") == SHIPPED


def test_repeats_land_in_the_agent_entry_and_one_removes_them(tmp_path, monkeypatch):
    path = _file(tmp_path)
    register(path, "s", "scripted/sampler", Settings(benchmarks=["ucl"], temperature=0.7, repeats=3))
    assert yaml.safe_load(path.read_text(encoding="utf-8"))["agents"]["s"]["repeats"] == 3
    assert load_params(path).repeats("s") == 3
    register(path, "s", "scripted/sampler", Settings(benchmarks=["ucl"]))  # left out: kept
    assert load_params(path).repeats("s") == 3
    register(path, "s", "scripted/sampler", Settings(benchmarks=["ucl"], repeats=1))  # one run: the key goes
    assert "repeats" not in yaml.safe_load(path.read_text(encoding="utf-8"))["agents"]["s"]
    # params check refuses a count below one in one line
    monkeypatch.chdir(tmp_path)
    path.write_text(SHIPPED.replace("    model: scripted/oracle\n", "    model: scripted/oracle\n    repeats: 0\n"))
    done = CliRunner().invoke(app, ["params", "check"])
    assert done.exit_code == 1 and "agents.oracle.repeats" in done.output
    assert len([line for line in done.output.splitlines() if "repeats" in line]) == 1

"""Paper protocols (steps/protocol.py): role resolution per benchmark, the `protocol: paper` presets, the protocol
label (one rule with the agent label), the twins' `protocol` column, the kernel never naming a benchmark, and
`eval --protocol paper` refusing missing keys before anything is written."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from steps.llm.config import Decoding, ModelConfig
from steps.params import BENCHMARKS, Params
from steps.protocol import PAPER_PROTOCOL, PaperProtocol, PaperRole, PaperSetting, ProtocolRecord, missing_keys
from steps.reports.labels import agent_label, twin_labels, twin_protocols
from steps.ucl.params import reference_model

ROOT = Path(__file__).resolve().parents[1]
GPT4 = PaperRole("openai/gpt-4-0613", "GPT-4", "§3.1", Decoding(temperature=0))
TOY = PaperProtocol(
    roles={"judge": GPT4},
    settings=(PaperSetting("max_exchanges", 3, "§3", "{value} exchanges, paper {paper}"),),
    size=1100,
    unit="items",
)


def record(judge: ModelConfig, size: int | None = None, exchanges: int = 3, paper: PaperProtocol = TOY):
    return ProtocolRecord("paper", {"judge": judge}, paper, {"max_exchanges": exchanges}, size)


def test_the_label_is_paper_protocol_or_each_deviation_in_order():
    same = ModelConfig(name="judge", model="openai/gpt-4-0613")
    assert record(same).label == PAPER_PROTOCOL == record(same, size=1100).label
    other = ModelConfig(name="judge", model="scripted/judge")
    assert record(other, size=235).label == "judge scripted/judge, paper GPT-4; 235 of 1,100 items"
    warm = same.model_copy(update={"decoding": Decoding(temperature=0.7, max_tokens=50)})
    assert record(warm, exchanges=1).label == (
        "judge temperature 0.7, paper 0; judge max_tokens 50, paper unset; 1 exchanges, paper 3"
    )
    caveat = PaperProtocol(roles={"judge": GPT4}, caveats=("instances rebuilt from public judgments",))
    assert record(same, paper=caveat).label == "instances rebuilt from public judgments"  # never paper protocol


def test_the_label_joins_the_one_agent_label_rule_and_the_twins_protocol_column():
    assert agent_label("m", True, 3, "paper protocol") == "m [scripted] [limit 3] [paper protocol]"
    assert agent_label("m") == "m"  # no protocol known: as before
    rows = pd.DataFrame(
        {
            "table": ["t", "t", "t"],
            "agent": ["a", "b", "GPT-4"],
            "proxy": [False, True, False],
            "limit": pd.array([None, 2, None], dtype="Int64"),
            "protocol": ["paper protocol", "judge scripted/judge, paper GPT-4", None],
            "source": ["ours", "ours", "paper"],
        }
    )
    assert twin_protocols(rows) == {"a": "paper protocol", "b": "judge scripted/judge, paper GPT-4"}
    assert twin_labels(rows) == {
        ("t", "a"): "a [paper protocol]",
        ("t", "b"): "b [scripted] [limit 2] [judge scripted/judge, paper GPT-4]",
    }
    assert twin_labels(rows, protocol=False)[("t", "b")] == "b [scripted] [limit 2]"


def test_roles_come_from_the_benchmark_then_the_paper_then_the_global_entries():
    params = Params.model_validate(
        {
            "judge": {"model": "openai/gpt-4o-mini", "decoding": {"seed": 3}},
            "j1": {"protocol": "paper", "environment": {"api_base": "http://127.0.0.1:9/v1"}},
            "mile": {"judge": {"decoding": {"temperature": 0.2}}},
            "ucl": {"protocol": "paper", "judge": {"model": "openai/gpt-4o-2024-11-20"}},
        }
    )
    env = params.environment_model("j1")  # the paper's model, reached at the benchmark's own address
    assert (env.model, env.api_base, env.decoding.temperature) == (
        "openai/gpt-4o-2024-11-20",
        "http://127.0.0.1:9/v1",
        0,
    )
    assert params.judge_model("j1").model == "openai/gpt-4o-2024-11-20"
    mile_judge = params.judge_model("mile")  # protocol ours: the global judge, its decoding merged field by field
    assert (mile_judge.model, mile_judge.decoding.temperature, mile_judge.decoding.seed) == (
        "openai/gpt-4o-mini",
        0.2,
        3,
    )
    assert params.environment_model("mile").model == "scripted/persona"
    assert params.judge_model("ucl").model == "openai/gpt-4o-2024-11-20"  # its own entry over the paper's
    ref = reference_model(params)
    assert (ref.name, ref.model) == ("chatgpt", "openai/gpt-3.5-turbo-1106")
    assert params.protocol_record("ucl").label == "judge openai/gpt-4o-2024-11-20, paper GPT-4 (gpt-4-0613)"
    named = Params.model_validate(
        {"ucl": {"protocol": "paper", "reference": {"name": "gpt4", "model": "openai/gpt-4"}}}
    )
    assert (reference_model(named).name, reference_model(named).model) == ("gpt4", "openai/gpt-4")


def test_every_paper_preset_names_snapshots_litellm_knows_and_its_spec_section():
    params = Params.model_validate({b: {"protocol": "paper"} for b in BENCHMARKS})
    for benchmark in BENCHMARKS:
        paper = params.section_named(benchmark).PAPER
        for role, theirs in paper.roles.items():
            assert re.search(r"\d", theirs.model.split("/", 1)[1]), theirs.model  # a dated or versioned snapshot
            assert theirs.source.startswith("spec ") and "§" in theirs.source
            assert params.role_model(benchmark, role).model == theirs.model
        assert params.protocol_record(benchmark, paper.size).deviations() == list(paper.caveats)
    record = params.protocol_record("mile").as_dict()
    assert record["roles"]["judge"]["paper_model"] == "openai/gpt-4o-2024-08-06"
    assert record["prompts"]["templates"] and all(len(h) == 64 for h in record["prompts"]["templates"].values())


def test_a_benchmark_section_rejects_an_unknown_protocol_or_a_bad_role():
    with pytest.raises(ValueError, match="protocol"):
        Params.model_validate({"j1": {"protocol": "papers"}})
    with pytest.raises(ValueError, match="unknown provider"):
        Params.model_validate({"mile": {"judge": {"model": "nope/x"}}})
    with pytest.raises(ValueError, match="temperature"):
        Params.model_validate({"ucl": {"judge": {"decoding": {"temperature": "hot"}}}})


def test_missing_keys_are_one_line_each(monkeypatch):
    for var in ("OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "MY_KEY"):
        monkeypatch.delenv(var, raising=False)
    models = [
        ModelConfig(name="judge", model="openai/gpt-4-0613"),
        ModelConfig(name="environment", model="openai/gpt-4o-2024-08-06"),  # the same variable: one line
        ModelConfig(name="judge", model="gemini/gemini-3-pro-preview"),
        ModelConfig(name="x", model="openai/x", api_key_env="MY_KEY"),
        ModelConfig(name="local", model="openai/x", api_base="http://127.0.0.1:9/v1"),  # a server: no key
        ModelConfig(name="s", model="scripted/judge"),
    ]
    lines = missing_keys(models)
    assert len(lines) == 3 and lines[0].startswith("OPENAI_API_KEY is not set (judge: openai/gpt-4-0613)")
    assert "GEMINI_API_KEY" in lines[1] and lines[2].startswith("MY_KEY is not set")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-only")
    assert len(missing_keys(models)) == 2


def test_eval_protocol_paper_refuses_one_line_per_missing_key_before_writing(tmp_path, monkeypatch):
    from flows.evaluate import Settings, evaluate
    from flows.kit.config import ParamsError

    for var in ("OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({"agents": {"oracle": {"model": "scripted/oracle"}}}), encoding="utf-8")
    before = params.read_text(encoding="utf-8")
    settings = Settings(benchmarks=["ucl", "plawbench"], protocol="paper")
    with pytest.raises(ParamsError) as err:
        evaluate("mine", "scripted/oracle", settings, params_file=params)
    lines = str(err.value).splitlines()
    assert lines[0].startswith("the paper's protocol needs API keys that are not set")
    assert sorted(line.split(" is not set")[0].strip() for line in lines[1:]) == [
        "GEMINI_API_KEY or GOOGLE_API_KEY",
        "OPENAI_API_KEY",
    ]
    assert params.read_text(encoding="utf-8") == before


def test_the_kernel_protocol_module_names_no_benchmark():
    for kernel in ("protocol.py", "sections.py"):
        text = (ROOT / "steps" / kernel).read_text(encoding="utf-8").lower()
        for name in (*BENCHMARKS, "maser", "gpt-4", "gemini"):
            assert name not in text, (kernel, name)
    for benchmark in BENCHMARKS:  # each preset lives in its own package and is its section's PAPER
        assert (ROOT / "steps" / benchmark / "protocol.py").is_file()


def test_evals_printout_lists_each_benchmarks_roles_and_protocol_label(tmp_path):
    from flows.evaluate import _with_protocol, role_summary

    params = Params.model_validate({"ucl": {"protocol": "paper", "judge": {"model": "openai/gpt-4o-mini"}}})
    lines = role_summary(params, ["lawbench", "ucl"], "mine", reports=tmp_path)  # no twin yet: params' label
    assert lines == [
        "  lawbench (protocol: ours): no model roles (rule-scored)",
        "    label: paper protocol",
        "  ucl (protocol: paper): environment openai/gpt-4-0613 (temperature 0), judge openai/gpt-4o-mini "
        "(temperature 0), reference openai/gpt-3.5-turbo-1106 (temperature 0)",
        "    label: judge openai/gpt-4o-mini, paper GPT-4 (gpt-4-0613)",
    ]
    assert _with_protocol("mine [limit 2]", "2 of 1,100 items") == "mine [limit 2] [2 of 1,100 items]"
    assert _with_protocol("mine", None) == "mine"


def test_a_mile_environment_role_may_have_a_model_of_its_own_and_the_label_says_so():
    from steps.mile.params import MileParams

    params = Params.model_validate(
        {"mile": {"protocol": "paper", "role_models": {"supervisor": {"model": "openai/gpt-4o-mini"}}}}
    )
    configs = params.section(MileParams).role_configs(params.environment_model("mile"))
    seen = {r: (m.model, m.decoding.temperature, m.decoding.max_tokens) for r, m in configs.items()}
    assert seen == {
        "client": ("openai/gpt-4o-2024-08-06", 0.5, 2048),
        "supervisor": ("openai/gpt-4o-mini", 0.0, 2048),  # its own model, the paper's decoding for the role
        "classifier": ("openai/gpt-4o-2024-08-06", 0.0, 1024),
        "styler": ("openai/gpt-4o-2024-08-06", 0.0, 1024),
        "blur": ("openai/gpt-4o-2024-08-06", 0.5, None),
    }
    assert params.protocol_record("mile").label == "supervisor openai/gpt-4o-mini, paper one model for every role"
    with pytest.raises(ValueError, match="unknown role 'lawyer'"):
        Params.model_validate({"mile": {"role_models": {"lawyer": {"model": "openai/x"}}}})


def test_results_lists_each_benchmarks_protocol_under_the_leaderboard():
    from steps.results import labelled, protocol_lines

    twins = pd.DataFrame(
        {
            "benchmark": ["ucl", "ucl", "lawbench"],
            "table": ["t3", "t3", "overall"],
            "agent": ["a", "b", "a"],
            "proxy": [True, True, False],
            "limit": pd.array([None, None, None], dtype="Int64"),
            "protocol": ["judge scripted/judge, paper GPT-4", "judge scripted/judge, paper GPT-4", "paper protocol"],
            "source": ["ours"] * 3,
        }
    )
    headlines = pd.DataFrame(
        {
            "benchmark": ["ucl", "ucl", "lawbench", "ucl"],
            "table": ["t3", "t3", "overall", "t3"],
            "agent": ["a", "b", "a", "GPT-4"],
            "source": ["ours", "ours", "ours", "paper"],
        }
    )
    rows = labelled(headlines, twins)
    assert rows.label.tolist() == ["a [scripted]", "b [scripted]", "a", "GPT-4 (paper)"]  # one row per agent
    assert rows.protocol.iloc[2] == "paper protocol" and pd.isna(rows.protocol.iloc[3])
    assert protocol_lines(rows) == ["ucl · a, b: judge scripted/judge, paper GPT-4", "lawbench · a: paper protocol"]


def test_params_check_shows_per_benchmark_which_roles_follow_the_paper_and_the_missing_keys(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from flows.cli import app

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    path = tmp_path / "params.yaml"
    doc = {"agents": {"oracle": {"model": "scripted/oracle"}}, "ucl": {"protocol": "paper"}}
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    out = CliRunner().invoke(app, ["params", "check", "--file", str(path)])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert "ucl (protocol: paper): paper protocol" in lines
    assert any(
        line.startswith("  judge openai/gpt-4-0613 (temperature 0): follows the paper (spec ucl-bench")
        for line in lines
    )
    assert any(
        line.startswith("  judge scripted/judge (temperature 0): deviates: paper GPT-4o") for line in lines
    )  # J1
    assert any(line.startswith("missing API key: OPENAI_API_KEY is not set") for line in lines)

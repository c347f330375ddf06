"""The report kit: `AgentInfo` built once from params.yaml and run.json (steps/reports/runs.py), the paper model
an agent corresponds to, and report prose in templates (one paragraph per line, no silent holes)."""

from __future__ import annotations

import json

import jinja2
import pytest

from flows.kit.config import Params
from flows.kit.paths import Paths
from steps.benchmarks import paper_names
from steps.reports.agents import AgentInfo
from steps.reports.prose import oneline, render_template
from steps.reports.runs import agent_info, agent_infos, run_info


def params() -> Params:
    return Params.model_validate(
        {
            "agents": {
                "gpt4o": {"model": "openai/gpt-4o-2024-11-20"},
                "mine": {"model": "openai/endpoint", "paper_model": "Qwen3 8B"},
                "oracle": {"model": "scripted/oracle"},
            }
        }
    )


def run_dir(tmp_path, name: str, **spec):
    folder = tmp_path / name
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({"run_id": f"id-{name}", **spec}), encoding="utf-8")
    return folder


def test_agents_are_built_from_params_and_their_run_json(tmp_path):
    paths = Paths(data=tmp_path)
    for name, limit in (("gpt4o", None), ("mine", 3), ("oracle", None)):
        run_dir(paths.runs("j1"), name, limit=limit, decoding={"temperature": 0})
    agents = agent_infos(params(), "j1", paths, names=paper_names("j1"))
    assert list(agents) == ["gpt4o", "mine", "oracle"]  # params.yaml order
    gpt, mine, oracle = agents.values()
    assert (gpt.model, gpt.scripted, gpt.paper_model, gpt.run_id, gpt.limit) == (
        "openai/gpt-4o-2024-11-20",
        False,
        "GPT-4o",  # by name
        "id-gpt4o",
        None,
    )
    # the protocol label: the stand-in roles of params.yaml against J1's paper (no run records a size here)
    protocol = (
        "environment scripted/persona, paper GPT-4o; judge scripted/judge, paper GPT-4o (gpt-4o-2024-11-20); "
        "instances rebuilt from public judgments"
    )
    by_paper_model = ("Qwen3 8B", 3, f"mine [limit 3] [{protocol}]")
    assert (mine.paper_model, mine.limit, mine.label) == by_paper_model
    assert oracle.scripted and oracle.paper_model is None and oracle.label == f"oracle [scripted] [{protocol}]"
    assert oracle.run["decoding"] == {"temperature": 0}


def test_a_benchmark_without_name_matching_and_an_agent_with_two_runs(tmp_path):
    runs = [run_dir(tmp_path, "zero", limit=2), run_dir(tmp_path, "one", limit=5)]
    info = agent_info(params(), "gpt4o", "lawbench", runs, names={"GPT4": ()}, by_name=False)
    assert (info.paper_model, info.run_id, info.limit, dict(info.run)) == (None, None, 5, {})


def test_a_run_without_run_json_is_one_clear_line_unless_optional(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"run.json: no run there; run the stage that makes it first"):
        agent_info(params(), "oracle", "lawbench", [tmp_path], names={})
    info = agent_info(params(), "oracle", "lawbench", [tmp_path], names={}, required=False)
    assert (info.run_id, info.limit, dict(info.run)) == (None, None, {})


def test_an_explicit_paper_name_must_be_a_model_of_that_paper(tmp_path):
    run_dir(tmp_path, "gpt4o")
    names = paper_names("plawbench")
    found = agent_info(params(), "gpt4o", "plawbench", [tmp_path / "gpt4o"], names=names, explicit={"gpt4o": "Kimi-K2"})
    assert found.paper_model == "Kimi-K2"
    with pytest.raises(ValueError, match=r"plawbench\.paper_names\.gpt4o: 'GPT-9' is not a model of the paper"):
        agent_info(params(), "gpt4o", "plawbench", [tmp_path / "gpt4o"], names=names, explicit={"gpt4o": "GPT-9"})


def test_the_run_info_names_the_environment_and_judge():
    run = run_info(params(), "j1", {"limit": 3})
    assert (run.environment, run.judge, run.options) == ("scripted/persona", "scripted/judge", {"limit": 3})
    assert run.environment_scripted and run.judge_scripted and run.scripted


def test_a_paragraph_is_one_line_and_a_missing_figure_is_an_error(tmp_path):
    assert oneline("  a long\n  paragraph\n\n  ends.\n") == "a long paragraph ends.\n"
    assert oneline("no newline") == "no newline" and oneline("\n") == ""
    (tmp_path / "r.md.j2").write_text(
        "# {{ a.label }}\n\n{% filter oneline %}\nn = {{ n }},\nover\nlines.\n{% endfilter %}\n", encoding="utf-8"
    )
    agent = AgentInfo("x", "m/x", True, limit=2)
    assert render_template(tmp_path, "r.md.j2", a=agent, n=3) == "# x [scripted] [limit 2]\n\nn = 3, over lines.\n"
    with pytest.raises(jinja2.UndefinedError, match="'n' is undefined"):
        render_template(tmp_path, "r.md.j2", a=agent)

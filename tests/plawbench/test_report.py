"""Report pieces: paper rows beside same-named agents, the self-preference flag."""

from __future__ import annotations

import pandas as pd
import pytest

from steps.benchmarks import paper_names
from steps.plawbench import paper
from steps.plawbench.report import main_table, same_family
from steps.reports.agents import AgentInfo
from steps.reports.paper_models import match_paper_model


def paper_model_for(agent: str, model: str, explicit: dict[str, str]) -> str | None:
    return match_paper_model(agent, model, paper_names("plawbench"), explicit, "plawbench.paper_names")


def test_agents_are_matched_to_the_paper_by_name_or_by_params():
    assert paper_model_for("gpt4o", "openai/gpt-4o-20240806", {}) == "GPT-4o-20240806"
    assert paper_model_for("kimi", "moonshot/kimi-k2", {}) == "Kimi-K2"
    assert paper_model_for("kimi", "moonshot/kimi-k2-0905", {}) is None  # a later release: not the same
    assert paper_model_for("kimi", "moonshot/kimi-k2-0905", {"kimi": "Kimi-K2"}) == "Kimi-K2"
    assert paper_model_for("Qwen3-Max", "hosted_vllm/x", {}) == "Qwen3-Max"
    with pytest.raises(ValueError, match=r"plawbench\.paper_names\.kimi: 'Kimi-K3' is not a model of the paper"):
        paper_model_for("kimi", "moonshot/kimi-k2", {"kimi": "Kimi-K3"})


def test_the_main_table_puts_the_papers_row_beside_a_matched_agent():
    ours = pd.DataFrame(
        {
            "table": "table3",
            "agent": "qwen",
            "scope": "overall",
            "metric": ["T1", "Overall"],
            "value": [0.5, 0.6],
            "n": [18, None],
            "source": "ours",
        }
    )
    published = (
        paper.table3_long()
        .rename(columns={"model": "agent"})
        .assign(table="table3", scope="overall", n=None, source="paper")
    )
    long = pd.concat([ours, published], ignore_index=True)
    table = main_table(long, {"qwen": AgentInfo("qwen", "dashscope/qwen3-max", False, "Qwen3-Max")})
    assert table.model.tolist()[:2] == ["qwen (dashscope/qwen3-max)", "↳ Qwen3-Max (paper)"]
    assert table.iloc[0]["Overall"] == 60.0 and table.iloc[1]["Overall"] == 64.75
    assert len(table) == 11 and table.model.str.contains("Qwen3-Max").sum() == 1


def test_agents_of_the_judges_family_are_flagged():
    agents = {"g": AgentInfo("g", "gemini/gemini-2.5-pro", False), "q": AgentInfo("q", "qwen/x", False)}
    assert same_family(agents, "gemini/gemini-3-pro-preview") == ["g"]
    assert same_family(agents, "scripted/judge") == []

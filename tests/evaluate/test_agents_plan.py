"""`jurisflow agents run` plans three `dvc repro` phases from params.yaml and DVC's stage graph: the stages every
agent needs, each agent's own stages (which never overlap, so they can run at once), then the reports."""

from __future__ import annotations

import pytest

from flows.agents import agent_stages, make_plan
from flows.kit.config import ParamsError
from tests.conftest import ROOT

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pygtrie, inside DVC's stage graph


@pytest.fixture
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)  # DVC's graph of this repository


def test_every_agent_gets_its_own_stages_and_the_shared_ones_run_first(at_root):
    plan = make_plan()
    assert set(plan.agents) == {"oracle", "null"}
    oracle, null = set(plan.agents["oracle"]), set(plan.agents["null"])
    assert not oracle & null and {"j1_simulate@oracle", "j1_judge@oracle", "ucl_judge@oracle"} <= oracle
    assert all("@null" in s for s in null)
    # everything the agents' stages need, and nothing that depends on an agent
    assert {"ingest", "j1_extract", "j1_instances", "ucl_reference", "plawbench_rubrics"} <= set(plan.shared)
    assert not {s for s in plan.shared if "@" in s or s.endswith("_report")}
    assert plan.final == []  # every agent: phase 3 is the whole pipeline


def test_a_subset_of_agents_ends_with_their_benchmarks_reports(at_root):
    plan = make_plan(["oracle"])
    assert list(plan.agents) == ["oracle"]
    assert sorted(plan.final) == ["j1_report", "lawbench_report", "mile_report", "plawbench_report", "ucl_report"]
    assert agent_stages("x", ["lawbench"]) == ["lawbench_predict@x-zero_shot", "lawbench_predict@x-one_shot"]


def test_an_unknown_agent_is_one_line(at_root):
    with pytest.raises(ParamsError, match=r"unknown agent.*nobody"):
        make_plan(["nobody"])

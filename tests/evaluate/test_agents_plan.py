"""`jurisflow agents run` plans three `dvc repro` phases from params.yaml and DVC's stage graph: the stages every
agent needs, each agent's own stages (which never overlap, so they can run at once), then the reports."""

from __future__ import annotations

import pytest

from flows.agents import agent_stages, make_plan
from flows.kit.config import ParamsError
from tests.conftest import ROOT

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),  # pygtrie, inside DVC's stage graph
]


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


def _clone(root):
    """A git clone holding a params.yaml and a dvc.yaml, committed."""
    import subprocess

    root.mkdir()
    (root / "params.yaml").write_text("agents: {}\n", encoding="utf-8")
    (root / "dvc.yaml").write_text("stages: {}\n", encoding="utf-8")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    for args in (["git", "init", "-q"], ["git", "add", "-A"], [*git, "commit", "-qm", "c"]):
        subprocess.run(args, cwd=root, check=True)
    return root


def test_a_worker_refuses_a_clone_whose_params_stages_or_commit_differ(tmp_path, monkeypatch):
    import flows.agents as agents

    ran = []
    monkeypatch.setattr(agents, "_stream", lambda label, args, env: ran.append(args) or 0)
    clone = _clone(tmp_path / "worker")
    monkeypatch.chdir(clone)
    expected = agents.fingerprint()
    assert set(expected) == {"params.yaml", "dvc.yaml", "git"}
    for key in expected:  # any one of the three differing: refused before any dvc command
        with pytest.raises(RuntimeError, match=rf"differs from the coordinator's in {key}"):
            agents.agent_stages_run.fn("a1", ["lawbench_predict@a1-zero_shot"], ["ingest"], {**expected, key: "x"})
    assert ran == []
    (clone / "params.yaml").write_text("agents: {a1: {}}\n", encoding="utf-8")  # edited, not committed
    with pytest.raises(RuntimeError, match=r"in params\.yaml: check out the same commit"):
        agents.agent_stages_run.fn("a1", ["lawbench_predict@a1-zero_shot"], [], expected)
    assert ran == []


def test_a_worker_in_a_matching_clone_restores_then_runs_then_pushes(tmp_path, monkeypatch):
    import flows.agents as agents
    from flows.dvc_cli import command

    ran = []
    launcher = len(command())  # the dvc executable, then its arguments
    monkeypatch.setattr(agents, "_stream", lambda label, args, env: ran.append([label, *args[launcher:]]) or 0)
    monkeypatch.setattr(agents, "stale", lambda stages: True)  # the shared stages are not here yet
    monkeypatch.chdir(_clone(tmp_path / "worker"))
    targets = ["lawbench_predict@a1-zero_shot", "lawbench_predict@a1-one_shot"]
    done = agents.agent_stages_run.fn("a1", targets, ["ingest"], agents.fingerprint())
    assert done == "a1: 2 stages reproduced and pushed"
    assert ran == [
        ["a1", "--wait-for-lock", "repro", "--pull", "ingest"],
        ["a1", "--wait-for-lock", "repro", "--pull", "--single-item", *targets],
        ["a1", "--wait-for-lock", "push", "--run-cache", *targets],
    ]


def test_one_agents_run_is_one_run_session_for_every_dvc_command_it_starts(monkeypatch):
    import flows.agents as agents
    from steps.llm.ledger import SESSION_ENV

    seen = []

    class Flow:  # the three phases, as `run` calls them: every command gets `_env()`
        def with_options(self, **_):
            return lambda plan, pool, jobs: seen.append(agents._env().get(SESSION_ENV)) or {"final": 0}

    monkeypatch.setattr(agents, "make_plan", lambda chosen: agents.Plan([], {"a1": ["x@a1"]}, []))
    monkeypatch.setattr(agents, "agents_flow", Flow())
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:1/api")  # no server started
    monkeypatch.delenv(SESSION_ENV, raising=False)
    assert agents.run(["a1"]) == 0 and agents.run(["a1"]) == 0
    assert all(seen) and seen[0] != seen[1]  # a fresh session per run
    assert SESSION_ENV not in agents._env()  # and none left behind
    monkeypatch.setenv(SESSION_ENV, "caller")  # the caller's session: one cap over several commands
    assert agents.run(["a1"]) == 0 and seen[-1] == "caller"


def test_a_worker_runs_its_commands_in_the_coordinators_session(tmp_path, monkeypatch):
    import flows.agents as agents
    from steps.llm.ledger import SESSION_ENV

    sessions = []
    monkeypatch.setattr(agents, "_stream", lambda label, args, env: sessions.append(env.get(SESSION_ENV)) or 0)
    monkeypatch.setattr(agents, "stale", lambda stages: True)
    monkeypatch.setenv(SESSION_ENV, "worker's own")  # restored after the test
    monkeypatch.chdir(_clone(tmp_path / "worker"))
    agents.agent_stages_run.fn("a1", ["x@a1"], ["ingest"], agents.fingerprint(), session="coordinator's")
    assert sessions == ["coordinator's"] * 3


def test_phase_1_also_runs_what_needs_no_agent_a_benchmark_per_lane(at_root):
    from flows.agents import lanes

    plan = make_plan()
    assert "lawbench_score" in plan.shared  # needs no agent: beside the shared stages, not alone in phase 3
    split = lanes(plan.shared, 2)
    assert split.before == ["ingest"] and split.after == []  # every benchmark's shared stage reads ingest's output
    assert len(split.lanes) == 2 and sorted(s for lane in split.lanes for s in lane) == sorted(
        set(plan.shared) - {"ingest"}
    )
    j1 = next(lane for lane in split.lanes if "j1_extract" in lane)
    assert all(s.startswith("j1_") for s in j1)  # one benchmark's stages stay in one lane, in DVC's order
    assert j1.index("j1_extract") < j1.index("j1_personas") < j1.index("j1_instances")
    assert len(lanes(plan.shared, 1).lanes) == 1  # one job: one lane


def test_phase_3_runs_the_benchmarks_reports_in_lanes_and_the_shared_reports_after(at_root):
    from flows.agents import lanes

    split = lanes(["html_report", "j1_report", "ucl_report", "lawbench_report", "data_report", "mile_report"], 2)
    assert split.before == [] and set(split.after) == {"html_report", "data_report"}
    assert sorted(len(lane) for lane in split.lanes) == [2, 2]
    assert sorted(s for lane in split.lanes for s in lane) == [
        "j1_report",
        "lawbench_report",
        "mile_report",
        "ucl_report",
    ]


class RecordedTask:
    """`repro_here` as a task run: records (label, targets), its work done at once; the future's result is exit
    code 3 when the targets hold `failing`, else 0."""

    def __init__(self, ran: list[tuple[str, list[str]]], failing: str) -> None:
        self.ran, self.failing = ran, failing

    def with_options(self, **_):
        return self

    def submit(self, label, targets):
        self.ran.append((label, targets))
        code = 3 if self.failing in targets else 0
        return type("Future", (), {"result": lambda self: code})()


def test_lanes_run_after_what_they_need_and_a_failure_stops_what_follows(monkeypatch):
    import flows.agents as agents

    ran: list[tuple[str, list[str]]] = []

    def stream(label, args, env):
        ran.append((label, args[args.index("repro") + 1 :]))
        return 0

    monkeypatch.setattr(agents, "repro_here", RecordedTask(ran, failing="bad"))
    monkeypatch.setattr(agents, "_stream", stream)
    assert agents.in_lanes("p", agents.Lanes(["root"], [["a1", "a2"], ["b1"]], ["end"])) == 0
    assert ran == [("p", ["root"]), ("p 1", ["a1", "a2"]), ("p 2", ["b1"]), ("p", ["end"])]
    ran.clear()
    assert agents.in_lanes("p", agents.Lanes([], [["a1"], ["bad"]], ["end"])) == 3
    assert ran == [("p 1", ["a1"]), ("p 2", ["bad"])]  # `end` never runs after a failed lane


def test_phase_2_queues_each_agents_benchmarks_interleaved(at_root):
    from flows.agents import chains

    plan = make_plan()
    work = chains(plan.agents)
    assert [(a, b) for a, b, _ in work[:4]] == [
        ("oracle", "j1"),
        ("null", "j1"),
        ("oracle", "lawbench"),
        ("null", "lawbench"),
    ]
    assert sorted(s for _, _, stages in work for s in stages) == sorted(s for t in plan.agents.values() for s in t)
    for agent, benchmark, stages in work:  # one agent's stages of one benchmark, in DVC's order (run before judge)
        assert all(s.startswith(f"{benchmark}_") and s.split("@")[1].startswith(agent) for s in stages)
        assert stages == [s for s in plan.agents[agent] if s in stages]


def test_phase_2_runs_every_unit_and_a_failed_benchmark_fails_its_agent_only(monkeypatch):
    import flows.agents as agents

    ran: list[tuple[str, list[str]]] = []
    monkeypatch.setattr(agents, "repro_here", RecordedTask(ran, failing="j1_simulate@a"))
    monkeypatch.setattr(agents, "_stream", lambda label, args, env: 0)
    plan = agents.Plan([], {"a": ["j1_simulate@a", "mile_simulate@a"], "b": ["j1_simulate@b"]}, ["x_report"])
    codes = agents.agents_flow.fn(plan)
    assert ran == [("a j1", ["j1_simulate@a"]), ("b j1", ["j1_simulate@b"]), ("a mile", ["mile_simulate@a"])]
    assert codes == {"a": 3, "b": 0}  # a's MILE ran after its J1 failed; phase 3 did not run

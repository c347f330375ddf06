"""Honest labels: every row's n, `[limit N]` on limited runs, headers that state only sizes every row has, the
paper model an agent corresponds to (agents.<name>.paper_model), and stage summaries that say what reports say."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from flows.kit.config import Params
from steps.benchmarks import check_paper_model, paper_names
from steps.lawbench.metrics.tasks import TASK_IDS
from steps.lawbench.report import render_setting
from steps.lawbench.stages import build_tables
from steps.reports.agents import AgentInfo, labelled_rows, with_stand_ins
from steps.reports.labels import agent_label, agent_paper_model, paper_model_name, size_phrase, twin_labels
from steps.runs import read_run, read_run_if_any
from steps.ucl.judging import HINT_COLUMNS
from steps.ucl.report import ReportInfo, headline, headline_text, render
from steps.ucl.tables import agent_long
from steps.ucl.tasks import PAPER_TASK_IDS
from tests.ucl.test_tables import agent as ucl_agent
from tests.ucl.test_tables import build, dialogue, one_order, report_info, verdict


def test_labels_and_size_phrases():
    assert agent_label("m") == "m" and agent_label("oracle", True) == "oracle [scripted]"
    assert agent_label("m", False, 3) == "m [limit 3]" and agent_label("o", True, 3) == "o [scripted] [limit 3]"
    assert size_phrase([10, 10], "items") == "10 items"
    assert size_phrase([3, 10, 10], "items") == "3–10 items (each row's `n`)"


def test_the_run_record_reads_the_runs_own_limit(tmp_path):
    assert read_run_if_any(tmp_path) is None  # no run.json: nothing to claim
    with pytest.raises(FileNotFoundError, match=r"run\.json: no run there"):
        read_run(tmp_path)
    (tmp_path / "run.json").write_text(json.dumps({"run_id": "r", "limit": 3, "model": "m"}), encoding="utf-8")
    record = read_run(tmp_path)
    assert (record.run_id, record.limit, record.model, record.spec["model"]) == ("r", 3, "m", "m")
    (tmp_path / "run.json").write_text(json.dumps({"run_id": "r", "limit": None}), encoding="utf-8")
    assert read_run(tmp_path).limit is None
    (tmp_path / "run.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ValueError, match="not a run record"):
        read_run(tmp_path)


def test_paper_model_is_validated_and_resolved_per_paper():
    params = Params.model_validate(
        {
            "agents": {
                "mine": {"model": "openai/some-endpoint", "paper_model": "gpt 4o"},
                "each": {"model": "openai/x", "paper_model": {"plawbench": "GPT-4o-20240806", "lawbench": "GPT4"}},
            }
        }
    )

    def named(agent: str, benchmark: str, names=None) -> str | None:
        return agent_paper_model(agent, params.agents[agent].paper_model, benchmark, names or paper_names(benchmark))

    assert named("mine", "j1") == "GPT-4o"  # case and punctuation ignored
    assert named("mine", "mile") == "GPT-4o"
    assert named("mine", "plawbench") is None  # that paper names it otherwise
    assert named("each", "plawbench") == "GPT-4o-20240806"
    assert named("each", "j1") is None
    assert named("each", "lawbench", {"GPT4": (), "GPT-3.5-turbo-0613": ()}) == "GPT4"
    with pytest.raises(ValueError, match=r"agents\.each\.paper_model\.lawbench: 'GPT4' is not a model"):
        named("each", "lawbench", {"GPT-3.5-turbo-0613": ()})  # checked against results.csv
    assert params.agent("mine").model == "openai/some-endpoint"  # not a model setting: the door never sees it
    with pytest.raises(ValueError, match=r"'GPT-9' is a model of no paper"):
        check_paper_model("GPT-9")
    with pytest.raises(ValueError, match=r"paper_model\.j1: 'GPT-4o-20240806' is not a model of the j1 paper"):
        check_paper_model({"j1": "GPT-4o-20240806"})
    with pytest.raises(ValueError, match="unknown benchmark 'mmlu'"):
        check_paper_model({"mmlu": "GPT-4o"})
    assert paper_model_name(None, "j1", paper_names("j1")) is None


def _lawbench_scores(agent: str, n: int) -> list[dict]:
    return [
        {
            "setting": "zero_shot",
            "agent": agent,
            "task": t,
            "score": 0.5,
            "abstention_rate": 0.0,
            "n": n,
            "n_failed": 0,
            "proxy": False,
            "run_id": "r",
        }
        for t in TASK_IDS
    ]


def test_lawbench_rows_say_their_n_and_the_limited_one_says_so():
    scores = pd.DataFrame(_lawbench_scores("lim", 3) + _lawbench_scores("full", 500)).astype({"score": float})
    published = pd.DataFrame(
        {"setting": "zero_shot", "model": "GPT4", "task": list(TASK_IDS), "score": 0.7, "abstention_rate": 0.0}
    )
    long, deltas = build_tables(scores, published)
    agents = {
        "lim": AgentInfo("lim", "openai/m", False, limit=3),
        "full": AgentInfo("full", "openai/gpt-4", False, paper_model="GPT4"),
    }
    lines = render_setting(long, deltas, "zero_shot", agents, "c0ffee", ["GPT4"]).splitlines()
    full = next(i for i, line in enumerate(lines) if line.startswith("| full | 500 | 50 |"))
    assert lines[full + 1].startswith("| ↳ GPT4 (published) | 500 | 70 |")  # its paper row right under it
    assert any(line.startswith("| lim [limit 3] | 3 | 50 |") for line in lines)
    assert any(line.startswith("| GPT4 (published) | 500 | 70 |") for line in lines)
    assert not any(line.startswith("| lim | ") for line in lines)  # never unmarked


def _ucl_info(agents: list[AgentInfo]) -> ReportInfo:
    return report_info(agents, ucl_agent("ref", "openai/r", "r0", items=10), user="u", items_per_task=10)


def test_ucl_rows_say_their_n_and_the_header_only_states_sizes_every_row_has():
    long = build(
        one_order("1-1", 2, 0, 1, agent="lim") + one_order("1-1", 10, 0, 0, agent="full"), agents=("lim", "full")
    )
    both = [
        ucl_agent("lim", "openai/m", "r1", items=3, limit=3),
        ucl_agent("full", "openai/gpt-4", "r2", "GPT-4", items=10),
    ]
    text = render(long, _ucl_info(both))
    assert "| lim [limit 3] | 3 | 66.7 |" in text and "| full | 10 | 100 |" in text
    assert "3–10 public items per task (each row's `n`) judged per agent" in text
    assert "10 public items per task judged" not in text
    assert "| **GPT-4** ↳ full | 62.5 |" in text  # the paper's rows under ours, the agent's model in bold
    alone = render(long, _ucl_info([both[1]]))
    assert "10 public items per task judged per agent" in alone and "| full | 10 |" in alone
    assert not any(line.startswith("| ") and "[limit" in line for line in alone.splitlines())


def test_ucl_judge_summary_and_report_agree_where_they_used_to_differ():
    """The old judge summary averaged every verdict (CC included, tasks weighted by their verdicts); the report's
    AVG is the mean of the 22 task win rates without CC. One function now gives both."""
    ids = list(PAPER_TASK_IDS)
    verdicts = [v for t in ids for v in one_order(t, 1, 0, 1, agent="a")]  # 50 on each of the 22 tasks
    verdicts += [verdict("a", "1-1", 10 + i, "candidate_first", "win") for i in range(4)]  # 1-1: 5 wins of 6
    verdicts += [verdict("a", "CC", i, "candidate_first", "win") for i in range(6)]  # CC: apart
    frame = pd.DataFrame(verdicts)
    old = 100 * frame.value.mean()  # what ucl_judge used to print
    dialogues = pd.DataFrame([dialogue("a", t, i, 1) for t in (*ids, "CC") for i in range(2)])
    long = build(verdicts, dialogues.to_dict("records"))
    mine = agent_long("a", "ref", "j", frame, pd.DataFrame(columns=HINT_COLUMNS), dialogues)
    report_avg = (50 * 21 + 100 * 5 / 6) / 22  # 51.5; every verdict pooled: 22 + 4 + 6 wins of 54 → 59.3
    assert headline(long, "a")["win rate"] == pytest.approx(round(report_avg, 1))
    assert headline(mine, "a") == headline(long, "a")  # the stage's own table: the same numbers
    assert round(old, 1) == 59.3 != round(report_avg, 1)  # the case where the two used to disagree
    text = render(long, _ucl_info([ucl_agent("a", "openai/m", "r1", items=4)]))
    row = next(line for line in text.splitlines() if line.startswith("| a | 4 |"))
    assert f"| {round(report_avg, 1):g} |" in row and f"win rate AVG {round(report_avg, 1)}" in headline_text(mine, "a")


def test_params_check_names_an_agents_paper_model_that_no_paper_has(tmp_path):
    from typer.testing import CliRunner

    from flows.cli import app

    bad = tmp_path / "params.yaml"
    bad.write_text("agents:\n  a:\n    model: openai/x\n    paper_model: GPT-9\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["params", "check", "--file", str(bad)])
    assert result.exit_code == 1 and "agents.a.paper_model: 'GPT-9' is a model of no paper" in result.output


def test_plawbench_marks_the_multi_turn_variant_scripted_when_only_its_client_is():
    """A scripted environment plays the client of PLawBench's multi-turn consultations only: the paper's protocol
    (Table 3, the headline) stays a measurement of a real agent judged by a real judge."""
    from steps.plawbench.report import ReportInputs, render_report
    from steps.plawbench.stages import build_tables
    from steps.reports.agents import RunInfo
    from tests.plawbench.test_report_failed_calls import _frames

    frames = _frames(None)
    multi = frames["scores"][frames["scores"].category == "consultation"].assign(variant="multiturn")
    frames["scores"] = pd.concat([frames["scores"], multi], ignore_index=True)
    frames["judge_info"] = frames["judge_info"].assign(environment_proxy=True)  # the scripted client
    tables = build_tables(frames)
    agents = {"a": AgentInfo("a", "m/a", False, run_id="r", limit=4)}
    long = labelled_rows(tables["long"], agents)
    tables["long"], agents = long, with_stand_ins(agents, long)
    ours = long[long.source == "ours"]
    assert not ours[ours["table"] == "table3"].proxy.any() and ours[ours["table"] == "multiturn"].proxy.all()
    health = ours[ours["table"] == "judge"]
    assert health[health.scope.str.startswith("multiturn/")].proxy.all()
    assert not health[health.scope.str.startswith("single/")].proxy.any()
    assert (agents["a"].label_in("table3"), agents["a"].label_in("multiturn")) == (
        "a [limit 4]",
        "a [scripted] [limit 4]",
    )
    inputs = ReportInputs(
        agents=agents,
        run=RunInfo("scripted/persona", True, "m/judge", False, {"limit": 4, "t1_penalties": "none"}),
        data_commit="0" * 40,
        n_tasks=5,
        parse_issues=0,
        issue_tasks=0,
    )
    text = render_report(tables, inputs)
    assert any(line.startswith("| a (m/a) [limit 4] | ") for line in text.splitlines())  # Table 3: measured
    assert any(line.startswith("| a [scripted] [limit 4] | ") for line in text.splitlines())  # beside multi-turn


def test_an_agents_label_is_its_tables_and_a_scripted_agent_is_scripted_everywhere():
    rows = pd.DataFrame(
        {
            "table": ["t1", "t2", "t1", "t1"],
            "agent": ["real", "real", "oracle", "GPT-4"],
            "proxy": [False, True, False, False],
            "source": ["ours", "ours", "ours", "paper"],
        }
    )
    agents = {"real": AgentInfo("real", "openai/m", False, limit=3), "oracle": AgentInfo("oracle", "scripted/o", True)}
    labelled = labelled_rows(rows, agents)
    assert labelled.proxy.tolist() == [False, True, True, False]  # the scripted agent's every number
    assert labelled["limit"].astype(object).where(labelled["limit"].notna(), None).tolist() == [3, 3, None, None]
    assert twin_labels(labelled) == {
        ("t1", "real"): "real [limit 3]",
        ("t2", "real"): "real [scripted] [limit 3]",
        ("t1", "oracle"): "oracle [scripted]",
    }
    real = with_stand_ins(agents, labelled)["real"]
    assert (real.label_in("t1"), real.label_in("t2"), real.label_in("t1", "t2")) == (
        "real [limit 3]",
        "real [scripted] [limit 3]",
        "real [scripted] [limit 3]",
    )
    assert real.label == "real [scripted] [limit 3]" and real.label_in("unknown") == "real [limit 3]"
    assert twin_labels(rows) == {  # a twin written before `limit`: no run known to be limited
        ("t1", "real"): "real",
        ("t2", "real"): "real [scripted]",
        ("t1", "oracle"): "oracle",
    }

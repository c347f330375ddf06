"""The result SQL (steps/ucl/sql/ucl_long.sql) on hand-computed cases and on the paper's own numbers."""

from __future__ import annotations

from fractions import Fraction

import pandas as pd
import pytest

from steps.benchmarks import paper_names
from steps.reports.agents import AgentInfo, RunInfo
from steps.reports.paper_models import match_paper_model
from steps.ucl.judging import HINT_COLUMNS
from steps.ucl.pairs import VERDICT_COLUMNS
from steps.ucl.paper import PaperModel, paper_long, paper_models
from steps.ucl.report import Notes, ReportInfo
from steps.ucl.schemas import UclDialogues
from steps.ucl.tables import long_table
from steps.ucl.tasks import PAPER_TASK_IDS, TASKS

KEY_OF = {t.id: t.key for t in TASKS}
POINTS = {"win": 1.0, "tie": 0.5, "lose": 0.0}


def match(agent: str, model: str) -> PaperModel | None:
    """The paper's row an agent of this name and model corresponds to (as the report stage matches it)."""
    name = match_paper_model(agent, model, paper_names("ucl"))
    return next((p for p in paper_models() if p.name == name), None)


def agent(
    name: str, model: str, run_id: str = "r", paper_model: str | None = None, items: int = 0, limit: int | None = None
) -> AgentInfo:
    """An agent of the report whose run answered `items` items of its largest task."""
    sizes = {"1-1": items} if items else {}
    return AgentInfo(name, model, model.startswith("scripted/"), paper_model, run_id, limit, sizes=sizes)


def report_info(
    agents: list[AgentInfo],
    reference: AgentInfo,
    *,
    user: str = "m/user",
    judge: str = "j",
    judge_scripted: bool = False,
    items_per_task: int = 3,
    notes: Notes | None = None,
    **options,
) -> ReportInfo:
    """A UCL report's setting; `options` override params.ucl's (exchanges 3, judge_retries 1, no pointwise)."""
    opts = {"exchanges": 3, "single_round": False, "judge_retries": 1, "pointwise": False, **options}
    run = RunInfo(user, user.startswith("scripted/"), judge, judge_scripted, opts)
    return ReportInfo(agents, reference, run, items_per_task, "x@0", notes or Notes())


def verdict(agent: str, task_id: str, item: int, order: str, outcome: str | None, failure: str | None = None):
    return {
        "run_id": "r",
        "reference_run_id": "rr",
        "agent": agent,
        "reference": "ref",
        "item_id": f"{KEY_OF[task_id]}/{item}",
        "task": KEY_OF[task_id],
        "order": order,
        "verdict": None,
        "outcome": outcome,
        "value": POINTS[outcome] if outcome else None,
        "failure": failure,
        "error": "",
        "attempts": 1,
        "raw": "",
        "judge": "j",
        "judge_proxy": True,
        "judge_prompt_version": "p",
    }


def dialogue(agent: str, task_id: str, item: int, rounds: int, ended_by: str = "marker", failure=None):
    return {
        "run_id": "r",
        "agent": agent,
        "benchmark": "ucl",
        "scenario": "UCL",
        "instance_id": f"{KEY_OF[task_id]}/{item}",
        "ended_by": ended_by,
        "exchanges": rounds,
        "utterances": 2 * rounds,
        "deliverable_kind": "dialogue",
        "deliverable": None,
        "forced": False,
        "failure": failure,
        "task": KEY_OF[task_id],
        "rounds": rounds,
        "transcript": "",
        "first_query": "q",
        "closing_extra": None,
    }


def build(verdicts, dialogues=(), hints=(), agents=("a",), matches=None) -> pd.DataFrame:
    agent_rows = [{"agent": a, "role": "agent", "judge": "j", "proxy": True} for a in agents]
    return long_table(
        {
            "verdicts": pd.DataFrame(verdicts, columns=VERDICT_COLUMNS),
            "hint_scores": pd.DataFrame(list(hints), columns=HINT_COLUMNS),
            "dialogues": pd.DataFrame(list(dialogues), columns=list(UclDialogues.to_schema().columns)),
            "paper": paper_long(matches or {}),
            "agents": pd.DataFrame([*agent_rows, {"agent": "ref", "role": "reference", "judge": "j", "proxy": True}]),
        }
    )


def value(long, metric, scope="overall", agent="a", source="ours"):
    hit = long[(long.agent == agent) & (long.metric == metric) & (long.scope == scope) & (long.source == source)]
    assert len(hit) == 1, f"{len(hit)} rows for {agent} {metric} {scope} {source}"
    v = hit.value.iloc[0]
    return None if pd.isna(v) else float(v)


def one_order(task_id: str, wins: int, ties: int, losses: int, start: int = 0, agent: str = "a"):
    outcomes = ["win"] * wins + ["tie"] * ties + ["lose"] * losses
    return [verdict(agent, task_id, start + i, "candidate_first", o) for i, o in enumerate(outcomes)]


def test_win_rate_counts_ties_half():
    long = build(one_order("3-1", 20, 2, 18))
    assert value(long, "win_rate", "3-1") == pytest.approx(52.5)
    assert value(long, "win_rate_candidate_first", "3-1") == pytest.approx(52.5)
    n = long[(long.metric == "win_rate") & (long.scope == "3-1")].n.iloc[0]
    assert n == 40


def _counts_for(rate: float) -> tuple[int, int]:
    """The smallest (N, 2·S) with 100·S/N within 0.05 of `rate` (S may be a half: ties)."""
    for n in range(1, 51):
        s2 = round(2 * rate * n / 100)
        if abs(100 * s2 / (2 * n) - rate) < 0.05:
            return n, s2
    raise AssertionError(rate)


def test_the_paper_table3_gpt4_row_is_reproduced_from_verdicts():
    """Verdict rows that give GPT-4's Table 3 cells reproduce the cells, and AVG as the macro mean."""
    gpt4 = next(p for p in paper_models() if p.name == "GPT-4")
    rows = []
    for task_id in PAPER_TASK_IDS:
        n, s2 = _counts_for(gpt4.cells[task_id])
        wins, ties = divmod(s2, 2)
        rows += one_order(task_id, wins, ties, n - wins - ties)
    long = build(rows)
    cells = [value(long, "win_rate", t) for t in PAPER_TASK_IDS]
    assert cells == pytest.approx([gpt4.cells[t] for t in PAPER_TASK_IDS], abs=0.05)
    assert value(long, "win_rate") == pytest.approx(sum(cells) / 22)
    assert value(long, "win_rate") == pytest.approx(gpt4.cells["AVG"], abs=0.1)  # printed 56.1
    assert value(long, "win_rate", "Memory") == pytest.approx(62.5)  # 1-1 alone
    assert value(long, "win_rate", "General public") == pytest.approx((cells[1] + cells[11]) / 2)  # 2-1, 4-3


def test_averages_need_every_task_and_leave_compensation_out():
    rows = [r for t in PAPER_TASK_IDS if t != "6-6" for r in one_order(t, 1, 0, 0)] + one_order("CC", 0, 0, 1)
    long = build(rows)
    assert value(long, "win_rate") is None and value(long, "win_rate", "Create") is None
    assert value(long, "win_rate", "Law office") is None  # 6-6 is a law-office task
    assert value(long, "win_rate", "Court") == 100.0 and value(long, "win_rate", "CC") == 0.0
    full = build(rows + one_order("6-6", 1, 0, 0))
    assert value(full, "win_rate") == 100.0  # the CC loss is in no average


def test_both_orders_pooled_balanced_and_disagreement():
    pairs = [("win", "win"), ("win", "lose"), ("tie", "win"), ("lose", "lose")]
    rows = [
        verdict("a", "2-1", i, order, o)
        for i, pair in enumerate(pairs)
        for order, o in zip(("candidate_first", "reference_first"), pair, strict=True)
    ]
    rows.append(verdict("a", "2-1", 9, "candidate_first", None, "unparsable"))
    rows.append(verdict("a", "2-1", 9, "reference_first", "win"))
    long = build(rows)
    # pooled: (1 + 1 + 1 + 0 + 0.5 + 1 + 0 + 0 + [item 9: 1]) / 9 valid verdicts
    assert value(long, "win_rate", "2-1") == pytest.approx(100 * 5.5 / 9)
    assert value(long, "win_rate_candidate_first", "2-1") == pytest.approx(100 * 2.5 / 4)
    assert value(long, "win_rate_reference_first", "2-1") == pytest.approx(100 * 3 / 5)
    # balanced: win needs both orders; (win,lose) and (tie,win) are ties; item 9 has only one valid order
    assert value(long, "win_rate_balanced", "2-1") == pytest.approx(100 * (1 + 0.5 + 0.5 + 0) / 4)
    assert value(long, "order_disagreement", "2-1") == pytest.approx(50.0)
    assert value(long, "verdicts_excluded", "2-1") == 1.0  # the unparsable verdict: excluded, not a loss


def test_turn_statistics_and_their_correlations():
    agents = ("a", "b", "c")
    rows, dialogues = [], []
    for k, agent in enumerate(agents):  # a: 1 round and wins; b: 2 rounds, ties; c: 3 rounds, loses
        for t in PAPER_TASK_IDS:
            rows += one_order(t, *[(1, 0, 0), (0, 1, 0), (0, 0, 1)][k], agent=agent)
            dialogues.append(dialogue(agent, t, 0, rounds=k + 1, ended_by="max_turns" if k == 2 else "marker"))
    dialogues.append(dialogue("a", "1-1", 5, rounds=0, ended_by="call_failed", failure="assistant: x"))
    dialogues.append(dialogue("ref", "1-1", 0, rounds=3, ended_by="max_turns"))
    long = build(rows, dialogues, agents=agents)
    assert value(long, "mean_rounds", agent="b") == 2.0 and value(long, "cap_rate", agent="c") == 100.0
    assert value(long, "dialogues_failed", agent="a") == 1.0 and value(long, "mean_rounds", agent="a") == 1.0
    assert value(long, "mean_rounds", "1-1", agent="ref") == 3.0  # the reference's turns are reported too
    assert value(long, "r_rounds_win_rate", agent="all agents") == pytest.approx(-1.0)
    assert value(long, "p_rounds_win_rate", agent="all agents") == 0.0
    # within one run, constant rounds give no correlation (undefined, not 0)
    assert value(long, "r_rounds_points", agent="a") is None


def test_dialogues_at_the_assistant_s_context_limit_are_counted_apart_where_there_are_any():
    from steps.ucl.report import _turns

    dialogues = [dialogue("a", "1-1", 0, rounds=2), dialogue("a", "1-1", 1, rounds=0, ended_by="context_exceeded")]
    dialogues.append(dialogue("ref", "1-1", 0, rounds=3, ended_by="max_turns"))
    long = build(one_order("1-1", 1, 0, 1), dialogues)
    assert value(long, "dialogues_at_context_limit", agent="a") == 1.0  # the model's limit, not a failure
    assert value(long, "dialogues_failed", agent="a") == 0.0 and value(long, "mean_rounds", agent="a") == 1.0
    info = report_info([agent("a", "openai/m")], agent("ref", "scripted/null"))
    table = _turns(long, info)
    assert table["at the context limit"].tolist() == [1.0, 0.0]
    quiet = build(one_order("1-1", 1, 0, 1), dialogues[:1] + dialogues[2:])
    assert not (quiet.metric == "dialogues_at_context_limit").any()  # nothing to say where none happened
    assert "at the context limit" not in _turns(quiet, info).columns


def test_across_agent_correlation_needs_three_agents():
    rows = one_order("1-1", 1, 0, 0, agent="a") + one_order("1-1", 0, 0, 1, agent="b")
    long = build(rows, [dialogue("a", "1-1", 0, 1), dialogue("b", "1-1", 0, 3)], agents=("a", "b"))
    assert value(long, "r_rounds_win_rate", agent="all agents") is None


def test_paper_rows_sit_beside_a_matched_agent():
    assert match("gpt4", "openai/gpt-4-0613").name == "GPT-4"
    assert match("q", "hosted_vllm/Qwen/Qwen2.5-7B-Instruct").name == "Qwen-2.5 7B"
    assert match("oracle", "scripted/oracle") is None and match("mine", "openai/gpt-4o") is None
    assert match("o1", "openai/o1-preview").name == "OpenAI o1-preview"  # by the model id of the paper's Table 10
    long = build(
        one_order("1-1", 1, 0, 0, agent="gpt4"), agents=("gpt4",), matches={"gpt4": match("gpt4", "openai/gpt-4-0613")}
    )
    assert value(long, "win_rate", "overall", "gpt4", "paper") == 56.1  # as printed
    assert value(long, "win_rate", "3-2", "gpt4", "paper") == 27.5
    assert value(long, "win_rate", "Memory", "gpt4", "paper") == 62.5  # derived like ours
    assert value(long, "win_rate", "Apply", "gpt4", "paper") == pytest.approx(float(Fraction(1543, 30)), abs=1e-9)
    paper = long[long.source == "paper"]
    assert set(paper.judge) == {"gpt-4-0613"} and not paper.proxy.any()


def test_the_bootstrap_interval_of_the_overall_win_rate():
    from steps.ucl.bootstrap import overall_interval

    certain = pd.DataFrame([r for t in PAPER_TASK_IDS for r in one_order(t, 10, 0, 0)], columns=VERDICT_COLUMNS)
    assert overall_interval(certain)[["low", "high"]].iloc[0].tolist() == [100.0, 100.0]
    coin = pd.DataFrame([r for t in PAPER_TASK_IDS for r in one_order(t, 5, 0, 5)], columns=VERDICT_COLUMNS)
    ci = overall_interval(coin).iloc[0]
    # the standard error of the mean of 22 task rates over 10 fair coins each is 100·√(0.25/10)/√22 ≈ 3.37
    assert ci.low < 50 < ci.high and 11 < ci.high - ci.low < 15.5
    assert overall_interval(coin).equals(overall_interval(coin))  # seeded
    assert overall_interval(coin[coin.task != KEY_OF["6-6"]]).empty  # needs all 22 tasks
    long = build(coin.to_dict("records"))
    assert value(long, "win_rate_ci_low") == pytest.approx(ci.low) and value(long, "win_rate") == 50.0


def _report(long: pd.DataFrame) -> str:
    from steps.ucl.report import render

    return render(long, report_info([agent("a", "m/a", "run-a")], agent("ref", "m/ref", "run-r")))


def _pairs(task_id: str, n: int, outcome: str = "win", start: int = 0, failure: str | None = None):
    return [
        verdict("a", task_id, start + i, order, None if failure else outcome, failure)
        for i in range(n)
        for order in ("candidate_first", "reference_first")
    ]


def test_failed_calls_are_shown_beside_the_win_rates_they_leave_out_and_in_the_csv():
    verdicts = (
        _pairs("3-1", 3)
        + _pairs("3-1", 1, start=3, failure="agent_failed")
        + [
            verdict("a", "3-1", 4, "candidate_first", None, "call_failed"),
            verdict("a", "3-1", 4, "reference_first", "lose"),
        ]
        + _pairs("3-1", 1, start=5, failure="unparsable")
        + _pairs("1-1", 2)
    )
    dialogues = [dialogue("a", "3-1", i, 2) for i in (0, 1, 2, 4, 5)] + [
        dialogue("a", "3-1", 3, 1, "call_failed", "timeout")
    ]
    long = build(verdicts, dialogues)
    win = long[(long.metric == "win_rate") & (long.source == "ours")].set_index("scope")
    assert win.n_failed["3-1"] == 3 and win.n_failed["1-1"] == 0  # 2 of the broken pair, 1 failed judge call
    assert value(long, "win_rate", "3-1") == pytest.approx(100 * 6 / 7)  # 6 wins, 1 loss; 5 verdicts excluded
    excluded = long[(long.metric == "verdicts_excluded") & (long.scope == "overall")].iloc[0]
    assert (excluded.value, excluded.n_failed) == (5, 3)  # the 2 unparsable ones are excluded, not failed calls
    failed_dialogues = long[(long.metric == "dialogues_failed") & (long.scope == "overall") & (long.agent == "a")]
    assert failed_dialogues.n_failed.tolist() == [1]
    text = _report(long)
    assert "| 85.7 (3 failed, 2 unparsable) |" in text  # the unparsable ones are counted beside it too
    assert "Failed model calls (after retries, accepted under `llm.max_failed_fraction`) cost verdicts: `a` 3." in text
    assert "`content_filter`" in text


def test_without_failed_calls_nothing_is_marked():
    long = build(
        _pairs("3-1", 3) + _pairs("3-1", 1, start=3, failure="unparsable"),
        [dialogue("a", "3-1", i, 2) for i in range(4)],
    )
    assert (long[long.source == "ours"].n_failed.fillna(0) == 0).all()
    assert long[long.source == "paper"].n_failed.isna().all()
    text = _report(long)
    assert "failed)" not in text and "Failed model calls" not in text and "content_filter" not in text
    assert "| 100 (2 unparsable) |" in text  # the 3-1 win rate, with only its unparsable verdicts counted


def test_items_are_limited_per_task_and_to_the_named_tasks():
    from steps.ucl.instances import limit_items

    items = pd.DataFrame({"task": ["b", "a", "b", "a", "c"], "id": [2, 1, 1, 2, 1]})
    assert limit_items(items, 1)[["task", "id"]].values.tolist() == [["a", 1], ["b", 1], ["c", 1]]
    assert limit_items(items, None, ["c", "a"])[["task", "id"]].values.tolist() == [["a", 1], ["a", 2], ["c", 1]]
    with pytest.raises(ValueError, match=r"ucl\.tasks: unknown d; the tasks are a, b, c"):
        limit_items(items, 1, ["a", "d"])

"""reports/j1.md and j1.csv: paper rows beside agents named after a paper model, marks for proxy cells and judge
failures, repeats as mean ± std beside the paper's Tables 11-12."""

from __future__ import annotations

import pandas as pd
import pytest

from steps.benchmarks import paper_names
from steps.j1.envs.provenance import Provenance
from steps.j1.eval.report import csv_frame, render
from steps.j1.eval.tables import compute
from steps.reports.agents import AgentInfo, RunInfo
from steps.reports.long import long_columns
from steps.reports.paper_models import match_paper_model
from tests.j1.eval.test_tables import dialogues, rows


def paper_model_for(agent: str, model: str | None, explicit: dict[str, str]) -> str | None:
    return match_paper_model(agent, model, paper_names("j1"), explicit, "j1eval.paper_names")


@pytest.mark.parametrize(
    ("agent", "model", "expected"),
    [
        ("gpt4o", "openai/gpt-4o-2024-11-20", "GPT-4o"),
        ("local", "hosted_vllm/Qwen3-32B", "Qwen3 32B"),
        ("qwen3_14b", "hosted_vllm/whatever", "Qwen3 14B"),
        ("claude", "anthropic/claude-3-7-sonnet-20250219", "Claude-3.7"),
        ("oracle", "scripted/oracle", None),
    ],
)
def test_agents_are_matched_to_paper_models_by_name(agent, model, expected):
    assert paper_model_for(agent, model, {}) == expected


def test_an_explicit_paper_name_wins_and_must_exist():
    assert paper_model_for("mine", "x/y", {"mine": "GLM4 9B"}) == "GLM4 9B"
    with pytest.raises(ValueError, match=r"j1eval\.paper_names\.mine: 'GPT-5' is not a model of the paper"):
        paper_model_for("mine", "x/y", {"mine": "GPT-5"})


def results_for(agents: list[str], groups: dict[str, list[str]]):
    scores, dials = [], []
    for i, agent in enumerate(agents):
        values = [(1.0, "scored"), (0.2 + 0.2 * i, "scored"), (None, "judge_failed")]
        scores += rows(agent, "CR", "III-5", values) + rows(agent, "CR", "III-3", values[:2])
        dials.append(dialogues(agent, "CR", [3, 4, 5]))
    table = pd.DataFrame(
        {"agent": agents, "model": "openai/gpt-4o-2024-11-20", "agent_scripted": False, "environment_scripted": False}
    )
    members = pd.DataFrame([(g, a) for g, m in groups.items() for a in m], columns=["group", "agent"]).astype(str)
    return compute(pd.DataFrame(scores), pd.concat(dials), table, members)


def run(groups: dict[str, list[str]] | None = None) -> RunInfo:
    groups = groups or {}
    options = {"call_failed": "exclude", "strict_topics": False, "min_exchanges": 4, "penalty_normaliser": "ratio"}
    return RunInfo("openai/gpt-4o-2024-11-20", False, "scripted/judge", True, {**options, "repeats": groups})


def test_paper_rows_marks_and_csv():
    results = results_for(["gpt4o"], {})
    agents = {"gpt4o": AgentInfo("gpt4o", "openai/gpt-4o-2024-11-20", False, "GPT-4o", limit=2, sizes={"CR": 2})}
    text = render(results, agents, run())
    # III-5 (proxy judge, one judge failure left out): (1 + 0.2) / 2; the paper's GPT-4o row beside it
    lines = text.splitlines()
    main = next(line for line in lines if line.startswith("| gpt4o [limit 2] | 2 |"))
    assert "| 60.0†‡ (1 unparsable) |" in main and "| 60.0 |" in main  # III-5 and III-3 (rule: no mark)
    paper = lines[lines.index(main) + 1]
    assert paper.startswith("| ↳ paper: GPT-4o | 508 | 69.7 | 62.7 |") and paper.endswith("| 62.2 | 46.8 | 54.5 |")
    # the paper's whole Table 3 is the next section, the agent's model in bold; the header admits the sizes differ
    assert lines[lines.index(paper) + 2] == "## The paper's Table 3, every model"
    assert sum(line.startswith("| **GPT-4o** ↳ gpt4o | 69.7 |") for line in lines) == 1
    assert "agents ran on different numbers of instances" in lines[2]
    assert "## Tables 11-12" not in text
    csv = csv_frame(results, agents, run())
    mine = csv[(csv.source == "ours") & (csv.metric == "III-5")].iloc[0]
    assert (mine.value, mine.n, mine.judge, bool(mine.proxy)) == (60.0, 2, "scripted/judge", True)
    theirs = csv[(csv.source == "paper") & (csv.agent == "gpt4o") & (csv.metric == "III-5") & (csv.scope == "CR")]
    assert theirs.value.tolist() == [42.8] and "Claude-3.7" in set(csv.agent)


def test_repeats_are_mean_and_std_beside_the_papers_repeats():
    groups = {"gpt-4o": ["r1", "r2", "r3"]}
    results = results_for(["r1", "r2", "r3"], groups)
    agents = {a: AgentInfo(a, "openai/gpt-4o-2024-11-20", False, None) for a in ("r1", "r2", "r3")}
    text = render(results, agents, run(groups))
    line = next(x for x in text.splitlines() if x.startswith("| gpt-4o (3 runs) |"))
    # III-3 per run: (1 + 0.2)/2, (1 + 0.4)/2, (1 + 0.6)/2 → 60, 70, 80: mean 70, sample std 10
    assert "| 70.0 ± 10.0 |" in line
    paper = text.splitlines()[text.splitlines().index(line) + 1]
    assert paper.startswith("| ↳ paper: GPT-4o | 65.7 ± 1.9 | 77.3 ± 0.4 |")
    csv = csv_frame(results, agents, run(groups))
    std = csv[(csv["table"] == "repeats_std") & (csv.source == "ours") & (csv.metric == "III-3")]
    assert std.value.tolist() == [10.0]


def _with_failed_calls(agent: str) -> tuple[list[dict], pd.DataFrame]:
    """CR III-5 over 5 instances: 2 scored, 1 broken by a failed agent call, 1 failed judge call, 1 unparsable
    judge answer (a judge failure, not a failed call); III-3 on the 2 scored, the broken one left out."""
    values = [
        (1.0, "scored"),
        (0.2, "scored"),
        (None, "dialogue_failed"),
        (None, "judge_failed"),
        (None, "judge_failed"),
    ]
    scores = rows(agent, "CR", "III-5", values) + rows(agent, "CR", "III-3", values[:3])
    for r in scores:
        if r["instance_id"] == "CR/3" and r["metric"] == "III-5":
            r["failure"] = "call_failed"  # the judge call itself failed after retries
    dials = dialogues(agent, "CR", [3, 4, 1, 5, 5])
    dials.loc[dials.instance_id == "CR/2", "ended_by"] = "call_failed"
    return scores, dials


def _results(scores: list[dict], dials: pd.DataFrame, agent: str):
    table = pd.DataFrame(
        {"agent": [agent], "model": "openai/gpt-4o-2024-11-20", "agent_scripted": False, "environment_scripted": False}
    )
    return compute(pd.DataFrame(scores), dials, table, pd.DataFrame({"group": [], "agent": []}).astype(str))


def test_failed_calls_are_shown_beside_every_number_they_affect_and_in_the_csv():
    scores, dials = _with_failed_calls("gpt4o")
    results = _results(scores, dials, "gpt4o")
    agents = {"gpt4o": AgentInfo("gpt4o", "openai/gpt-4o-2024-11-20", False, "GPT-4o")}
    text = render(results, agents, run())
    main = next(line for line in text.splitlines() if line.startswith("| gpt4o |"))
    # III-5: the broken dialogue and the failed judge call; the unparsable answer (‡) is counted apart
    assert "| 60.0†‡ (2 failed, 1 unparsable) |" in main and "| 60.0 (1 failed) |" in main  # III-5, III-3
    lines = text.splitlines()
    start = next(i for i, x in enumerate(lines) if x.startswith("## Table 10"))
    turns = next(line for line in lines[start:] if line.startswith("| gpt4o |"))
    assert "| 3.6 (1 failed) |" in turns  # Table 10: (3 + 4 + 1 + 5 + 5) / 5, one dialogue a failed call ended
    assert "Failed model calls (after retries, accepted under `llm.max_failed_fraction`): 3 instance-cells" in text
    assert "`content_filter`" in text
    csv = csv_frame(results, agents, run())
    mine = csv[(csv.source == "ours") & (csv["table"] == "table3") & (csv.scope == "CR")].set_index("metric")
    assert mine.n_failed.to_dict() == {"III-3": 1, "III-5": 2}
    assert mine.n_unparsable.to_dict() == {"III-3": 0, "III-5": 1}
    assert csv[(csv.source == "paper")].n_failed.isna().all() and csv[(csv.source == "paper")].n_unparsable.isna().all()
    assert list(csv.columns) == long_columns(with_unparsable=True)  # `limit`: labelled_rows adds it


def test_a_dialogue_a_failed_call_ended_counts_even_when_it_is_scored():
    """j1eval.call_failed = score: the broken dialogue is scored as it stands, and still marked."""
    scores = rows("a", "CR", "III-3", [(1.0, "scored"), (0.0, "scored")])
    dials = dialogues("a", "CR", [3, 1])
    dials.loc[dials.instance_id == "CR/1", "ended_by"] = "call_failed"
    cell = _results(scores, dials, "a").cells.iloc[0]
    assert (cell.n, cell.n_failed, cell.value) == (2, 1, 50.0)


def test_without_failed_calls_the_report_has_no_mark_and_no_note():
    results = results_for(["gpt4o"], {})  # one unparsable judge answer: ‡, not a failed call
    agents = {"gpt4o": AgentInfo("gpt4o", "openai/gpt-4o-2024-11-20", False, "GPT-4o")}
    text = render(results, agents, run())
    assert "failed)" not in text and "Failed model calls" not in text and "content_filter" not in text
    assert "| 60.0†‡ (1 unparsable) |" in text and "Unparsable judge answers (no valid answer" in text
    csv = csv_frame(results, agents, run())
    assert (csv[csv.source == "ours"].n_failed == 0).all()


def test_failed_tasks_at_the_agents_context_limit_are_counted_apart():
    """A CR trial the agent ended by outgrowing its context is a failed task (0), counted in its own column; the
    column appears only when some agent reached its limit."""
    scores = rows("a", "CR", "III-3", [(1.0, "scored"), (0.0, "failed_task"), (0.0, "failed_task")])
    dials = dialogues("a", "CR", [3, 2, 1])
    dials.loc[dials.instance_id == "CR/1", "ended_by"] = "context_exceeded"
    results = _results(scores, dials, "a")
    cell = results.cells.iloc[0]
    assert (cell.n, cell.n_failed_task, cell.n_context_exceeded, cell.n_failed) == (3, 2, 1, 0)
    agents = {"a": AgentInfo("a", "openai/gpt-4o-2024-11-20", False, None)}
    lines = render(results, agents, run()).splitlines()
    header = next(x for x in lines if x.startswith("| Agent | Env | Metric | n averaged |"))
    assert "| of which failed tasks | of them at the agent's context limit | skipped |" in header
    assert "| a | CR | III-3 | 3 | 2 | 1 | 0 | 0 | 0 |" in lines
    assert any("ended by outgrowing its context window" in x for x in lines)
    plain = render(results_for(["a"], {}), agents, run()).splitlines()
    assert not any("context limit" in x for x in plain if x.startswith("| Agent | Env | Metric"))


def test_the_header_says_where_the_instances_come_from_and_how_they_differ():
    results = results_for(["gpt4o"], {})
    agents = {"gpt4o": AgentInfo("gpt4o", "openai/gpt-4o-2024-11-20", False, "GPT-4o", sizes={"CR": 3})}
    sizes = {"KQ": (98, 98), "LC": (62, 62), "CD": (25, 93), "DD": (25, 93), "CI": (25, 93), "CR": (69, 69)}
    built = Provenance(sizes, ("CD", "DD", "CI"), 25, 25, {"KQ": (240, 150), "LC": (44, 124)})
    lines = render(results, agents, run(), built).splitlines()
    assert lines[2].startswith("Ours: environment `openai/gpt-4o-2024-11-20`; judge `scripted/judge` (proxy judge).")
    head = next(line for line in lines if line.startswith("**Instances rebuilt"))
    assert lines[lines.index(head) - 1] == lines[lines.index(head) + 1] == ""  # a paragraph of its own
    assert head.startswith("**Instances rebuilt from public judgments and Q&A, not J1's** (unreleased)")
    assert (
        "Instances ours (paper, Table 5): KQ 98 (98), LC 62 (62), CD 25 (93), DD 25 (93), CI 25 (93), CR 69 (69)."
        in head
    )
    assert "CD, DD and CI are built from one shared set of 25 civil cases (paper: one set of 93)" in head
    assert "KQ 240 + 150 (286 + 188), LC 44 + 124 (116 + 107)." in head and "LC has fewer yes/no topics" in head
    assert "(paper 98)" not in "\n".join(lines[: lines.index(head)])
    # without the instances table, the sizes the runs show, still labelled as rebuilt
    fallback = next(x for x in render(results, agents, run()).splitlines() if x.startswith("**Instances rebuilt"))
    assert "Instances run, ours (paper, Table 5): KQ 0 (98), LC 0 (62)" in fallback and "CR 3 (69)" in fallback


def test_an_agents_repeated_runs_are_a_repeats_group_under_its_name():
    from dataclasses import replace

    from steps.j1.eval.tables import agent_repeats

    runs = []
    for i in range(3):  # III-3 per run: (1 + 0.2)/2, (1 + 0.4)/2, (1 + 0.6)/2 → 60, 70, 80
        values: list[tuple[float | None, str]] = [(1.0, "scored"), (0.2 + 0.2 * i, "scored")]
        runs.append((pd.DataFrame(rows("s", "CR", "III-3", values)), dialogues("s", "CR", [3, 4])))
    table = pd.DataFrame(
        {"agent": ["s"], "model": "openai/gpt-4o-2024-11-20", "agent_scripted": False, "environment_scripted": False}
    )
    repeats, groups = agent_repeats({"s": runs}, table)
    assert groups == {"s": ["s", "s/repeat-1", "s/repeat-2"]}
    cell = repeats[(repeats.agent == "s") & (repeats.metric == "III-3")].iloc[0]
    assert (cell["mean"], cell["std"], cell["runs"]) == (pytest.approx(70.0), pytest.approx(10.0), 3)
    results = replace(results_for(["s"], {}), repeats=repeats)
    agents = {"s": AgentInfo("s", "openai/gpt-4o-2024-11-20", False, None)}
    text = render(results, agents, run(groups))
    assert any(x.startswith("| s (3 runs) |") and "| 70.0 ± 10.0 |" in x for x in text.splitlines())
    csv = csv_frame(results, agents, run(groups))
    std = csv[(csv["table"] == "repeats_std") & (csv.source == "ours") & (csv.metric == "III-3")]
    assert std.agent.tolist() == ["s"] and std.value.tolist() == [10.0]


def test_a_repeats_groups_interval_includes_the_run_to_run_variance():
    """III-3 per run over two cases: (100, 20), (100, 40), (100, 60) → 60, 70, 80 with SEs 40, 30, 20 (|a − b| / 2).
    SE² = (40² + 30² + 20²) / 3 + 10² / 3 = 966.67 + 33.33 = 1000, so SE = √1000."""
    from dataclasses import replace

    from steps.j1.eval.intervals import item_scores_of, repeats_cells
    from steps.j1.eval.tables import agent_repeats
    from steps.stats.cells import attach_intervals, cell_intervals

    runs = []
    for i in range(3):
        values: list[tuple[float | None, str]] = [(1.0, "scored"), (0.2 + 0.2 * i, "scored")]
        runs.append((pd.DataFrame(rows("s", "CR", "III-3", values)), dialogues("s", "CR", [3, 4])))
    table = pd.DataFrame(
        {"agent": ["s"], "model": "openai/gpt-4o-2024-11-20", "agent_scripted": False, "environment_scripted": False}
    )
    repeats, groups = agent_repeats({"s": runs}, table)
    cells = cell_intervals(item_scores_of(runs[0][0]))
    grouped = repeats_cells(cells, {"s": [s for s, _ in runs]}, groups)
    cell = grouped[(grouped.metric == "III-3") & (grouped.scope == "CR")].iloc[0]
    assert (cell.table, cell.agent, cell.runs) == ("repeats_mean", "s", 3)
    assert cell.estimate == pytest.approx(70.0) and cell.sd_runs == pytest.approx(10.0)
    assert cell.se == pytest.approx(1000**0.5) and cell.ci_method.startswith("repeats(k=3)+")
    one = cells[(cells.metric == "III-3") & (cells.scope == "CR")].iloc[0]
    assert one.se == pytest.approx(40.0) and cell.se > (2900 / 3) ** 0.5  # above the within-run part alone

    results = replace(results_for(["s"], {}), repeats=repeats)
    agents = {"s": AgentInfo("s", "openai/gpt-4o-2024-11-20", False, None)}
    # the twin: the repeats_mean row carries the group's interval, the repeats_std row none
    csv = attach_intervals(csv_frame(results, agents, run(groups)), pd.concat([cells, grouped], ignore_index=True))
    mean = csv[(csv["table"] == "repeats_mean") & (csv.source == "ours") & (csv.metric == "III-3")].iloc[0]
    assert mean.value == pytest.approx(70.0) and mean.se == pytest.approx(1000**0.5, abs=1e-6)
    std = csv[(csv["table"] == "repeats_std") & (csv.source == "ours") & (csv.metric == "III-3")].iloc[0]
    assert pd.isna(std.se) and pd.isna(std.ci_low)
    # the Markdown: under the group's mean ± std, the row of its 95 % intervals (the same bounds as the twin)
    lines = render(results, agents, run(groups), repeat_intervals=grouped).splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith("| s (3 runs) |"))
    assert lines[at + 1].startswith("| ↳ 95 % interval (runs' spread in) |")
    column = next(i for i, h in enumerate(lines[at - 2].split("|")) if h.strip() == "CR III-3")
    assert lines[at + 1].split("|")[column].strip() == f"[{mean.ci_low:.1f}, {mean.ci_high:.1f}]"

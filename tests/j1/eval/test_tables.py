"""The aggregation SQL: pinned to the paper's own tables (its AVG columns, II-2 and III-4 combinations) and to
hand-computed cells, repeats, turns and court failures."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from steps.j1.eval.paper import paper_long
from steps.j1.eval.records import Row
from steps.j1.eval.tables import averages_of, compute

TABLE3 = paper_long()[paper_long()["table"] == "table3"]


def test_the_averages_reproduce_every_printed_avg_of_table3():
    """AVG_OO / AVG_PO from the paper's 16 cells ("-" counted as 0) give its printed averages to rounding."""
    cells = TABLE3[TABLE3.scope != "overall"].rename(columns={"model": "agent"})
    cells = cells.assign(
        component="", n=1, n_failed=0, n_unparsable=0, judge="rule", proxy=False, value=cells.value.fillna(0.0)
    )
    columns = ["agent", "scope", "metric", "component", "value", "n", "n_failed", "n_unparsable", "judge", "proxy"]
    ours = averages_of(cells[columns])
    printed = TABLE3[TABLE3.scope == "overall"].set_index(["model", "metric"]).value
    mine = ours[ours.metric != "Overall"].set_index(["agent", "metric"]).value
    assert len(mine) == 34
    assert (mine - printed.reindex(mine.index)).abs().max() <= 0.05 + 1e-9
    claude = ours.set_index(["agent", "metric"]).value[("Claude-3.7", "Overall")]
    assert claude == pytest.approx(56.25, abs=0.05)  # the paper's best Overall (Fig. 3), from unrounded cells


@pytest.mark.parametrize(("table", "scope"), [("table6", "CD"), ("table7", "DD")])
def test_ii2_is_the_plain_mean_of_its_components_as_in_the_paper(table, scope):
    parts = paper_long()[paper_long()["table"] == table].pivot(index="model", columns="metric", values="value")
    printed = TABLE3[(TABLE3.scope == scope) & (TABLE3.metric == "II-2")].set_index("model").value.fillna(0.0)
    for model, values in parts.fillna(0.0).iterrows():
        row = Row(model, scope)
        combined = row.combined("II-2", [row.rule("II-2", v / 100, c) for c, v in values.items()])
        assert 100 * combined.value == pytest.approx(printed[model], abs=0.1 + 1e-9), model  # printed to 0.1


def test_iii4_is_the_mean_of_sen_and_fine_as_in_the_paper():
    t9 = paper_long()[paper_long()["table"] == "table9"].pivot(index="model", columns="metric", values="value")
    printed = TABLE3[(TABLE3.scope == "CR") & (TABLE3.metric == "III-4")].set_index("model").value
    both = t9[["III-4/SEN", "III-4/FINE"]].dropna()
    assert len(both) == 16
    assert ((both.sum(axis=1) / 2 - printed[both.index]).abs() <= 0.05 + 1e-9).all()


def rows(agent: str, scenario: str, metric: str, values: list[tuple[float | None, str]], component: str = ""):
    out = []
    for i, (value, status) in enumerate(values):
        failure = {"judge_failed": "unparsable", "dialogue_failed": "call_failed: x"}.get(status)
        out.append(
            {
                "run_id": "r",
                "agent": agent,
                "scenario": scenario,
                "instance_id": f"{scenario}/{i}",
                "metric": metric,
                "component": component,
                "value": value,
                "status": status,
                "failure": failure,
                "error": "",
                "judge": "scripted/judge" if metric == "III-5" else "rule",
                "judge_prompt_version": "",
                "judge_proxy": metric == "III-5",
                "attempts": int(metric == "III-5"),
                "evidence": "{}",
            }
        )
    return out


AGENTS = pd.DataFrame(
    {"agent": ["a", "b"], "model": ["m", "m"], "agent_scripted": [False, False], "environment_scripted": [False, False]}
)
NO_GROUPS = pd.DataFrame({"group": pd.Series(dtype=str), "agent": pd.Series(dtype=str)})


def dialogues(agent: str, scenario: str, exchanges: list[int], causes: list[list[str]] | None = None):
    return pd.DataFrame(
        {
            "agent": agent,
            "scenario": scenario,
            "instance_id": [f"{scenario}/{i}" for i in range(len(exchanges))],
            "exchanges": exchanges,
            "ended_by": "marker",
            "failure_causes": causes or [[] for _ in exchanges],
        }
    )


def test_a_cell_averages_scored_and_failed_tasks_and_counts_what_it_leaves_out():
    scores = pd.DataFrame(
        rows(
            "a",
            "CR",
            "III-5",
            [
                (1.0, "scored"),
                (0.5, "scored"),
                (0.0, "failed_task"),
                (None, "judge_failed"),
                (None, "skipped"),
                (None, "dialogue_failed"),
            ],
        )
    )
    results = compute(scores, dialogues("a", "CR", [10, 20, 1, 5, 5, 2]), AGENTS, NO_GROUPS)
    cell = results.cells.iloc[0]
    assert cell.value == pytest.approx(100 * 1.5 / 3) and cell.n == 3
    counts = (cell.n_failed_task, cell.n_skipped, cell.n_judge_failed, cell.n_dialogue_failed)
    assert counts == (1, 1, 1, 1) and cell.judge == "scripted/judge" and cell.proxy and cell.judge_proxy
    turns = results.turns.iloc[0]
    assert (turns.value, turns.n) == (pytest.approx(43 / 6), 6)


def test_topic_rows_are_not_cells():
    scores = pd.DataFrame(rows("a", "KQ", "I-1", [(1.0, "scored")]) + rows("a", "KQ", "I-1", [(0.0, "scored")], "T1"))
    results = compute(scores, dialogues("a", "KQ", [3]), AGENTS, NO_GROUPS)
    assert results.cells[["metric", "component", "value"]].values.tolist() == [["I-1", "", 100.0]]
    assert results.topics.iloc[0][["topics", "scored", "skipped"]].tolist() == [1, 1, 0]


def test_repeats_give_the_mean_and_sample_std_of_the_runs():
    scores = pd.DataFrame(
        rows("a", "CR", "III-3", [(1.0, "scored"), (0.2, "scored")])
        + rows("b", "CR", "III-3", [(1.0, "scored"), (0.4, "scored")])
    )
    both = pd.concat([dialogues("a", "CR", [3, 3]), dialogues("b", "CR", [3, 3])])
    groups = pd.DataFrame({"group": ["g", "g"], "agent": ["a", "b"]})
    rep = compute(scores, both, AGENTS, groups).repeats.iloc[0]
    assert (rep["agent"], rep["runs"], rep["mean"]) == ("g", 2, pytest.approx(65.0))
    assert rep["std"] == pytest.approx(math.sqrt(((60 - 65) ** 2 + (70 - 65) ** 2) / 1))


def test_court_failures_count_invalid_trials_their_reasons_and_causes():
    uni = rows("a", "CI", "III-1", [(1.0, "scored"), (0.0, "scored"), (0.0, "scored")], "UNI")
    for r, why in zip(uni, [None, "no_judgment", "single_turn_collapse"], strict=True):
        r["evidence"] = json.dumps({"invalid": why})
    broken = rows("a", "CI", "III-1", [(None, "dialogue_failed")])
    broken[0]["instance_id"] = "CI/3"
    causes = [["missing_addressee"], ["missing_final_objective", "role_omission"], ["single_turn_collapse"], []]
    results = compute(pd.DataFrame(uni + broken), dialogues("a", "CI", [30, 50, 1, 2], causes), AGENTS, NO_GROUPS)
    got = results.failures.set_index("metric").value.to_dict()
    assert (got["trials"], got["invalid"], got["broken"]) == (4, 2, 1)
    assert (got["invalid/no_judgment"], got["invalid/single_turn_collapse"], got["invalid/too_short"]) == (1, 1, 0)
    assert (got["cause/missing_addressee"], got["invalid+cause/missing_addressee"]) == (1, 0)
    assert (got["cause/role_omission"], got["invalid+cause/role_omission"]) == (1, 1)


def test_an_environment_not_run_leaves_the_averages_missing():
    scores = pd.DataFrame(rows("a", "CR", "III-3", [(1.0, "scored")]))
    averages = compute(scores, dialogues("a", "CR", [3]), AGENTS, NO_GROUPS).averages
    assert averages.value.isna().all() and set(averages.metric) == {"AVG_OO", "AVG_PO", "Overall"}

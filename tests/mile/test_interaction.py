"""Interaction windows (which lawyer turns are scored, with what context) and their aggregation."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from steps.mile.interaction import Utterance, consistency_task, interaction_tasks, scored_turns
from steps.mile.sql import QUERIES


@pytest.mark.parametrize(
    ("last", "turns"),
    [(0, []), (1, [1]), (2, [2]), (3, [2, 3]), (4, [2, 4]), (15, [2, 4, 6, 8, 10, 12, 14, 15])],
)
def test_even_turns_and_an_odd_last_turn_are_scored(last, turns):
    assert scored_turns(last) == turns


def dialogue(last: int) -> list[Utterance]:
    said = [Utterance(0, "client", "C0"), Utterance(0, "lawyer", "L0")]
    for i in range(1, last + 1):
        said += [Utterance(i, "client", f"C{i}"), Utterance(i, "lawyer", f"L{i}")]
    return said


def test_the_full_window_holds_everything_before_the_reply_and_the_strict_one_the_previous_turn():
    full = interaction_tasks("mile/1", dialogue(3), "出生日期")
    assert [t.turn for t in full] == [2, 3]
    assert [h["text"] for h in full[0].inputs["history"]] == ["C0", "L0", "C1", "L1", "C2"]
    assert full[0].inputs["response"] == "L2" and "律师：L2" in full[0].prompt and "出生日期" in full[0].prompt
    assert "L3" not in full[0].prompt
    strict = interaction_tasks("mile/1", dialogue(3), "出生日期", windows="strict")
    assert [h["text"] for h in strict[1].inputs["history"]] == ["C2", "L2", "C3"]


def test_the_complaint_and_the_greetings_are_never_scored_and_a_missing_reply_is_skipped():
    said = dialogue(2)[:-1]  # the lawyer's turn-2 reply is missing (the dialogue failed there)
    assert [t.turn for t in interaction_tasks("mile/1", said, "性别")] == [1]
    assert interaction_tasks("mile/1", dialogue(0), "性别") == []


def test_consistency_reads_the_clients_statements_from_turn_one():
    task = consistency_task(
        "mile/1", dialogue(2), {"tone": "T", "content": "C", "interaction": "I", "law_level": "L", "personality": "P"}
    )
    assert task.inputs["statements"] == ["C1", "C2"] and task.metrics == {"分数": "CONS"}
    assert consistency_task("mile/1", dialogue(0), {}) is None


def test_dialogue_means_first_then_the_mean_over_dialogues():
    # dialogue 1: INT grades 8 and 6 over two windows; dialogue 2: one window graded 10
    rows = [("mile/1", 2, 8.0), ("mile/1", 4, 6.0), ("mile/2", 2, 10.0)]
    base = {"run_id": "t", "agent": "a", "stage": "interaction", "failure": None, "judge": "j", "judge_proxy": False}
    scores = pd.DataFrame(
        [
            {**base, "instance_id": i, "turn": t, "metric": m, "grade": g}
            for i, t, g in rows
            for m in ("INT", "PROF", "LOGI")
        ]
    )
    dialogues = pd.DataFrame(
        {"agent": ["a", "a"], "instance_id": ["mile/1", "mile/2"], "law_reason": ["物权纠纷", "物权纠纷"]}
    )
    agents = pd.DataFrame({"agent": ["a"], "model": ["m"], "agent_scripted": [False], "environment_scripted": [False]})
    with duckdb.connect() as con:
        for name, df in (("scores", scores), ("dialogues", dialogues), ("agents", agents)):
            con.register(name, df)
        out = QUERIES.run(con, "mile_interaction").set_index(["scope", "metric"])
    assert out.loc[("overall", "INT"), "value"] == pytest.approx(85.0)  # (70 + 100) / 2
    assert out.loc[("windows", "INT"), "value"] == pytest.approx(80.0)  # (80 + 60 + 100) / 3
    assert out.loc[("overall", "AVE"), "value"] == pytest.approx(85.0)
    assert (out.loc[("overall", "INT"), "n"], out.loc[("windows", "INT"), "n"]) == (2, 3)
    assert out.loc[("物权纠纷", "INT"), "value"] == pytest.approx(85.0)


def test_failed_calls_are_counted_per_scope_and_round_apart_from_unparsable_answers():
    # mile/1: windows at turns 2 and 4, the turn-4 judge call failed; mile/2: the turn-2 answer was unparsable;
    # mile/3 (another cause): the dialogue broke on a failed call (one row per metric, no turn)
    rows = [
        ("mile/1", 2, 8.0, None),
        ("mile/1", 4, None, "call_failed"),
        ("mile/2", 2, None, "unparsable"),
        ("mile/2", 4, 6.0, None),
        ("mile/3", None, None, "dialogue_failed"),
    ]
    base = {"run_id": "t", "agent": "a", "stage": "interaction", "judge": "j", "judge_proxy": False}
    scores = pd.DataFrame(
        [
            {**base, "instance_id": i, "turn": t, "metric": m, "grade": g, "failure": f}
            for i, t, g, f in rows
            for m in ("INT", "PROF", "LOGI")
        ]
    )
    scores["turn"] = scores.turn.astype("Int64")
    dialogues = pd.DataFrame(
        {
            "agent": "a",
            "instance_id": ["mile/1", "mile/2", "mile/3"],
            "law_reason": ["物权纠纷", "物权纠纷", "侵权责任纠纷"],
        }
    )
    agents = pd.DataFrame({"agent": ["a"], "model": ["m"], "agent_scripted": [False], "environment_scripted": [False]})
    with duckdb.connect() as con:
        for name, df in (("scores", scores), ("dialogues", dialogues), ("agents", agents)):
            con.register(name, df)
        out = QUERIES.run(con, "mile_interaction").set_index(["scope", "metric"])
        rounds = QUERIES.run(con, "mile_rounds").set_index(["scope", "metric"])
    assert out.loc[("overall", "INT"), "n_failed_calls"] == 2  # the failed judge call and the broken dialogue
    assert out.loc[("overall", "INT"), "n_failed"] == 3  # every exclusion, the unparsable answer included
    assert out.loc[("windows", "INT"), "n_failed_calls"] == 2 and out.loc[("overall", "AVE"), "n_failed_calls"] == 2
    assert out.loc[("物权纠纷", "INT"), "n_failed_calls"] == 1
    broken = out.loc[("侵权责任纠纷", "INT")]  # nothing scored there: no number, its failures still counted
    assert pd.isna(broken.value) and broken.n == 0 and broken.n_failed_calls == 1 and broken.n_unparsable == 0
    assert out.loc[("物权纠纷", "INT"), "n_unparsable"] == 1 and out.loc[("overall", "AVE"), "n_unparsable"] == 1
    assert rounds.loc[("turn 2", "INT"), "n_unparsable"] == 1
    assert rounds.loc[("turn 4", "INT"), "n_failed_calls"] == 1 and rounds.loc[("turn 2", "INT"), "n_failed_calls"] == 0
    assert rounds.loc[("turn 4", "INT"), "value"] == pytest.approx(60.0) and rounds.loc[("turn 4", "INT"), "n"] == 1

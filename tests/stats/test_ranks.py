"""Tie groups of the leaderboard (`jurisflow results --ranks`): the procedure and the paired tests, by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from steps.lawbench.metrics.tasks import TASK_IDS
from steps.paths import Paths
from steps.results import headline_ranks, leaderboard
from steps.stats.cells import ITEM_COLUMNS, ItemScores
from steps.stats.ranks import cell_p_value, tie_groups


def test_leader_first_groups_with_competition_ranks() -> None:
    values = {"a": 0.9, "b": 0.85, "c": 0.5, "d": 0.45, "e": 0.1}
    p = {("a", "b"): 0.3, ("a", "c"): 0.001, ("a", "d"): 0.01, ("a", "e"): 0.0, ("c", "d"): 0.4, ("c", "e"): 0.04}
    asked: list[tuple[str, str]] = []

    def p_value(x: str, y: str) -> float | None:
        asked.append((x, y))
        return p[(x, y)]

    assert tie_groups(values, p_value) == {"a": 1, "b": 1, "c": 3, "d": 3, "e": 5}
    assert asked == [("a", "b"), ("a", "c"), ("a", "d"), ("a", "e"), ("c", "d"), ("c", "e")]  # only vs the leader
    assert tie_groups({"x": 1.0, "y": 0.0}, lambda a, b: None) == {"x": 1, "y": 1}  # nothing paired: no separation


def _binary(agent: str, right: list[int]) -> pd.DataFrame:
    return pd.DataFrame(
        [(agent, "t", "all", "acc", f"i{k}", f"i{k}", float(v), "proportion") for k, v in enumerate(right)],
        columns=ITEM_COLUMNS,
    )


def test_mcnemar_decides_the_groups_of_a_zero_one_cell() -> None:
    a = [1] * 10 + [0] * 2
    b = [1, 1] + [0] * 10  # wrong on 8 items A got right, right on none A got wrong: p = 2 · 0.5⁸ = 0.0078
    c = [1] * 8 + [0] * 4  # wrong on 2 of A's: p = 2 · 0.5² = 0.5
    scores = ItemScores(pd.concat([_binary("A", a), _binary("B", b), _binary("C", c)], ignore_index=True))
    key = ("t", "all", "acc")
    p_ab = cell_p_value(scores, "A", "B", key)
    assert p_ab is not None and p_ab[0] == pytest.approx(2 * 0.5**8) and p_ab[1] == "mcnemar-exact"
    assert cell_p_value(scores, "A", "C", key) == (pytest.approx(0.5), "mcnemar-exact")
    values = {"A": 10 / 12, "B": 2 / 12, "C": 8 / 12}

    def p_value(x: str, y: str) -> float | None:
        found = cell_p_value(scores, x, y, key)
        return None if found is None else found[0]

    assert tie_groups(values, p_value) == {"A": 1, "C": 1, "B": 3}


def _lawbench_run(paths: Paths, agent: str, score: float, flipped: int = 0) -> None:
    """Zero-shot item scores of every task, 10 items each, all `score` (2-1: counts giving F0.5 1 or 0); the first
    `flipped` items of 1-2 the other way."""
    frames = []
    for task in TASK_IDS:
        n = 10
        if task == "2-1":
            tp, fp, fn = ([1] * n, [0] * n, [0] * n) if score else ([0] * n, [1] * n, [1] * n)
            values = [None] * n
        else:
            tp = fp = fn = [None] * n
            values = [score] * n
            if task == "1-2":
                values = [1 - score] * flipped + [score] * (n - flipped)
        frames.append(pd.DataFrame({
            "setting": "zero_shot", "agent": agent, "task": task, "idx": range(n),
            "score": pd.array(values, dtype="Float64"), "tp": pd.array(tp, dtype="Int64"),
            "fp": pd.array(fp, dtype="Int64"), "fn": pd.array(fn, dtype="Int64"),
        }))  # fmt: skip
    run = paths.run("lawbench", agent, "zero_shot")
    run.mkdir(parents=True)
    pd.concat(frames, ignore_index=True).to_parquet(run / "item_scores.parquet")


def test_headline_ranks_from_the_runs_item_scores(tmp_path) -> None:
    paths = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=tmp_path / ".cache")
    _lawbench_run(paths, "top", 1.0)
    _lawbench_run(paths, "near", 1.0, flipped=1)  # one item of 200 differs from `top`: p = 1
    _lawbench_run(paths, "low", 0.0)
    rows = pd.DataFrame(
        {
            "benchmark": "lawbench", "column": "LawBench 0-shot", "position": 1, "table": "zero_shot",
            "agent": ["top", "near", "low", "ghost", "GPT4"], "source": ["ours"] * 4 + ["paper"],
            "value": [100.0, 99.5, 0.0, 50.0, 60.0], "n": None, "n_failed": None, "label": None,
            "ci_low": None, "ci_high": None,
        }
    )  # fmt: skip
    rows["label"] = rows.agent
    ranks = headline_ranks(rows, paths, ("lawbench",))
    # `ghost` has no run: not ranked; the paper's row is never ranked
    assert ranks == {("lawbench", "LawBench 0-shot", a): r for a, r in (("top", 1), ("near", 1), ("low", 3))}
    table = leaderboard(rows, ("lawbench",), ranks=ranks).set_index("agent")
    assert table.loc["near", "LawBench 0-shot"] == "#1 99.5" and table.loc["low", "LawBench 0-shot"] == "#3 0.0"
    assert table.loc["ghost", "LawBench 0-shot"] == "50.0" and table.loc["GPT4", "LawBench 0-shot"] == "60.0"

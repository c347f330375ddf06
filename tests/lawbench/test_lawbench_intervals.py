"""LawBench's item scores: they give exactly the numbers the report prints, and their intervals by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from steps.lawbench.intervals import item_scores_of
from steps.lawbench.metrics.batch import score_predictions_and_items
from steps.lawbench.metrics.proofread.fscore import f_beta
from steps.lawbench.metrics.tasks import TASK_IDS
from steps.lawbench.schemas import LawBenchItemScores
from steps.schemas.base import validate
from steps.stats.cells import cell_intervals, flatten
from steps.stats.intervals import wilson


def _rows(task: str, scores: list[float | None], counts: list[tuple[int, int, int]] | None = None) -> pd.DataFrame:
    n = len(counts) if counts is not None else len(scores)
    tp, fp, fn = ([c[k] for c in counts] for k in range(3)) if counts is not None else ([None] * n,) * 3
    return pd.DataFrame(
        {"setting": "zero_shot", "agent": "a", "task": task, "idx": range(n),
         "score": pd.array(scores if counts is None else [None] * n, dtype="Float64"),
         "tp": pd.array(tp, dtype="Int64"), "fp": pd.array(fp, dtype="Int64"), "fn": pd.array(fn, dtype="Int64")}
    )  # fmt: skip


def _items() -> pd.DataFrame:
    """Every task: accuracy tasks 3 of 4 right, other tasks scores 0.2, 0.4, 0.9 and an item the rule skips,
    2-1 two items with edit counts (tp, fp, fn) (3, 1, 2) and (1, 3, 0) plus an item with none."""
    frames = []
    for task in TASK_IDS:
        if task == "2-1":
            frames.append(_rows(task, [], [(3, 1, 2), (1, 3, 0), (0, 0, 0)]))
        elif task in ("1-2", "2-2", "2-4", "2-8", "3-6", "3-7"):
            frames.append(_rows(task, [1.0, 1.0, 0.0, 1.0]))
        else:
            frames.append(_rows(task, [0.2, None, 0.4, 0.9]))
    return validate(pd.concat(frames, ignore_index=True), LawBenchItemScores, table="item_scores")


def test_cells_by_hand() -> None:
    scores = item_scores_of(_items())
    cells = cell_intervals(scores, b=400).set_index(["table", "scope", "metric"])
    acc = cells.loc[("zero_shot", "1-2", "score")]
    ref = wilson(3, 4)
    assert acc.ci_method == "wilson" and (acc.estimate, acc.ci_low, acc.ci_high) == pytest.approx(
        (0.75, ref.low, ref.high)
    )
    rouge = cells.loc[("zero_shot", "1-1", "score")]  # the skipped item is left out: 3 items, SE s/√3, t with 2 df
    s = np.std([0.2, 0.4, 0.9], ddof=1)
    assert rouge.n == 3 and rouge.estimate == pytest.approx(0.5) and rouge.se == pytest.approx(s / math.sqrt(3))
    assert rouge.ci_method == "cluster-se(t, G=3)"
    proof = cells.loc[("zero_shot", "2-1", "score")]  # corpus F0.5 of the summed counts (4, 4, 2)
    assert proof.estimate == pytest.approx(f_beta(4, 4, 2)) and proof.n == 3
    assert proof.ci_method == "cluster-bootstrap(B=400)" and proof.ci_low < proof.estimate < proof.ci_high
    # every replicate redraws the three items: F0.5 of the counts drawn lies between the items' own extremes
    assert proof.ci_low >= 0.0 and proof.ci_high <= f_beta(3, 1, 2) + 1e-12
    overall = cells.loc[("zero_shot", "overall", "score")]
    means = {t: 0.75 if t in ("1-2", "2-2", "2-4", "2-8", "3-6", "3-7") else 0.5 for t in TASK_IDS}
    means["2-1"] = f_beta(4, 4, 2)
    assert overall.estimate == pytest.approx(sum(means.values()) / 20) and overall.n == 20 * 4 - 13 - 1
    assert overall.ci_method == "cluster-bootstrap(B=400)" and overall.ci_low < overall.estimate < overall.ci_high
    assert set(flatten(("zero_shot", "Memorization", "score"), scores.aggregates)) == {
        ("zero_shot", "1-1", "score"),
        ("zero_shot", "1-2", "score"),
    }
    assert ("one_shot", "overall", "score") not in cells.index  # no one-shot items


def test_the_bootstrap_resamples_items_within_their_task() -> None:
    """Stratified by task: every replicate keeps each task's item count, so a cell whose tasks all score the
    same on every item has a zero-width interval even though the tasks differ from one another."""
    items = pd.concat([_rows("1-1", [0.3] * 5), _rows("1-2", [1.0] * 7)], ignore_index=True)
    scores = item_scores_of(items)
    cells = cell_intervals(scores, b=200).set_index(["table", "scope", "metric"])
    memo = cells.loc[("zero_shot", "Memorization", "score")]
    assert memo.estimate == pytest.approx(0.65) and memo.se == pytest.approx(0.0, abs=1e-12)
    assert memo.ci_low == pytest.approx(0.65) and memo.ci_high == pytest.approx(0.65)


def test_one_item_per_task_collapses_the_tasks_into_one_stratum() -> None:
    """`--limit 1`: every task is one item, a stratum of one cluster that the within-task bootstrap never varies
    (it read `± 0.0`). The collapsed strata resample the tasks' items together: the bootstrap SE of a mean of k
    values, √(Σ(y − ȳ)²)/k, here for the overall of 20 tasks scoring 0 or 1 (10 each): 0.5/√20."""
    items = pd.concat([_rows(t, [float(i % 2)]) for i, t in enumerate(TASK_IDS) if t != "2-1"], ignore_index=True)
    items = pd.concat([items, _rows("2-1", [], [(1, 0, 0)])], ignore_index=True)  # F0.5 = 1
    cells = cell_intervals(item_scores_of(items), b=4000).set_index(["table", "scope", "metric"])
    overall = cells.loc[("zero_shot", "overall", "score")]
    ones = 1 + sum(i % 2 for i, t in enumerate(TASK_IDS) if t != "2-1")
    y = np.array([1.0] * ones + [0.0] * (20 - ones))
    assert overall.estimate == pytest.approx(y.mean())
    assert overall.se == pytest.approx(np.std(y) / math.sqrt(20), rel=0.05)
    assert overall.ci_method == "cluster-bootstrap(B=4000; 20 one-cluster strata collapsed)"
    assert overall.ci_low < overall.estimate < overall.ci_high


def test_item_scores_average_to_every_task_score() -> None:
    """score_predictions_and_items: a task's score is the mean of its items' values (2-1: F0.5 of their counts)."""
    predictions = ["A", "正确答案：B", "", "C"]
    references = ["正确答案：A", "正确答案：B", "正确答案：C", "正确答案：D"]
    prison = ["有期徒刑12个月", "", "3年", "10个月"]
    prison_refs = ["刑期:12个月", "刑期:无期", "刑期:24个月", "刑期:8个月"]
    rows = [("1-2", i, p, r) for i, (p, r) in enumerate(zip(predictions, references, strict=True))]
    rows += [("3-4", i, p, r) for i, (p, r) in enumerate(zip(prison, prison_refs, strict=True))]
    df = pd.DataFrame(rows, columns=["task", "idx", "prediction", "reference"]).assign(
        setting="zero_shot", model="m", prompt=""
    )
    scores, items = score_predictions_and_items(df, workers=1)
    for task, part in items.groupby("task"):
        values = part.score.dropna().astype(float)
        assert scores.set_index("task").loc[task, "score"] == sum(values) / len(values)  # exactly, not approx
    assert items[items.task == "3-4"].score.isna().tolist() == [False, True, False, False]  # 无期: skipped
    assert items.tp.isna().all() and len(items) == 8

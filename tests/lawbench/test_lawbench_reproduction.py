"""Every mirrored (setting, model, task) cell of LawBench's results.csv, re-scored from the predictions: the scores
the `lawbench_score` stage wrote in the session's `base` project (tests/helpers.py: BASE_STAGES), which the reports
put beside the paper's, and the edit counts of the task 2-1 cells that need them, scored here.

Non-2-1 cells reproduce to 2.2e-16. Task 2-1 is scored with LawBench's `cilin.txt` and `confusion_dict.txt`
read the way the stages read them (ingest's loaders → Parquet tables → the aligner's lexicon); 6 of its 8
mirrored cells then reproduce exactly. The other two depend on which rows the official run's 10-second
wall-clock timeout replaced by `无`, which we replace by a deterministic path-count rule (MAX_PATHS); they
are pinned below with their edit counts and the evidence for that reason.
"""

from __future__ import annotations

import csv
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd
import pytest

from steps.lawbench.metrics import TaskScore, read_prediction_tree, score_task
from steps.lawbench.metrics.proofread import MAX_PATHS, lexicon_tables
from steps.lawbench.metrics.proofread.fscore import f_beta
from steps.lawbench.sources import load_cilin, load_confusions
from steps.sources.types import Fetched

# (setting, model) -> published score, our score, our TP, FP, FN: the cells that depend on the timeout.
# - zero-shot chatglm2-6b-hf: 17 rows exceed MAX_PATHS. Five more rows have between 73,728 and 100,000
#   cheapest paths, the band in which the official builder timed out or not depending on machine load (spec
#   §6.6); with them timed out too (a threshold of 73,728) the cell reproduces (test below).
# - zero-shot lawyer-llama-13b-hf: the published 0.0433 needs 25-29 fewer false positives than we count, and
#   no path-count threshold gets there (test below): the official run replaced a few more rows by `无`
#   (a 10-second wall-clock timeout or an error), which ones cannot be recovered from its output.
KNOWN_2_1 = {
    ("zero_shot", "chatglm2-6b-hf"): (0.0184, 0.0182, 36, 2287, 566),
    ("zero_shot", "lawyer-llama-13b-hf"): (0.0433, 0.0427, 66, 1716, 536),
}
# Spec §6.6: on the spec author's machine no row with fewer cheapest paths than this timed out.
LOWEST_TIMED_OUT = 73_728


@pytest.fixture(scope="module")
def lexicon(mirror, tmp_path_factory) -> dict[str, Path]:
    """Task 2-1's lexicon as the stages read it: ingest's tables from the pinned files."""
    folder = tmp_path_factory.mktemp("interim")
    evaluation = mirror / "lawbench" / "evaluation"
    load_cilin([Fetched(None, evaluation / "cilin.txt")]).to_parquet(folder / "lawbench_cilin.parquet")
    load_confusions([Fetched(None, evaluation / "confusion_dict.txt")]).to_parquet(
        folder / "lawbench_confusions.parquet"
    )
    return lexicon_tables(folder)


@pytest.fixture(scope="module")
def predictions(mirror) -> pd.DataFrame:
    df, skipped = read_prediction_tree(mirror / "lawbench" / "predictions")
    assert skipped == []
    return df


@pytest.fixture(scope="module")
def published(mirror) -> pd.DataFrame:
    rows = []
    for setting in ("zero_shot", "one_shot"):
        with open(mirror / "lawbench" / "predictions" / setting / "results.csv", encoding="utf-8") as f:
            for rec in csv.DictReader(f):
                rows.append(
                    {
                        "setting": setting,
                        "model": rec["model_name"],
                        "task": rec["task"],
                        "score": float(rec["score"]),
                        "abstention_rate": float(rec["abstention_rate"]),
                    }
                )
    return pd.DataFrame(rows)


def _proofreading(items: pd.DataFrame, lexicon: dict[str, Path], max_paths: int = MAX_PATHS) -> TaskScore:
    from steps.lawbench.metrics.proofread import score_proofreading

    items = items.sort_values("idx")
    args = items["prediction"].tolist(), items["reference"].tolist(), items["prompt"].tolist()
    return score_proofreading(*args, **lexicon, max_paths=max_paths)


@pytest.fixture(scope="module")
def stage_scores(base) -> pd.DataFrame:
    """Every cell as the `lawbench_score` stage scored it (the base project's published_scores.parquet)."""
    scores = pd.read_parquet(base / "data" / "lawbench" / "published_scores.parquet")
    return scores.rename(columns={"agent": "model"})


@pytest.fixture(scope="module")
def rescored(stage_scores, published) -> pd.DataFrame:
    """The stage's non-2-1 cells beside the published ones."""
    scores = stage_scores[stage_scores["task"] != "2-1"]
    return scores.merge(published, on=["setting", "model", "task"], suffixes=("", "_published"), validate="1:1")


# The 2-1 cells whose edit counts the tests below read: the two timeout-dependent ones and zero-shot GPT4.
COUNTED_2_1 = (*KNOWN_2_1, ("zero_shot", "GPT4"))


@pytest.fixture(scope="module")
def proofreading(predictions, lexicon) -> dict[tuple[str, str], TaskScore]:
    """Task 2-1 scored here, with its edit counts, for the cells of COUNTED_2_1."""
    cells = predictions[predictions["task"] == "2-1"].groupby(["setting", "model"])
    groups = {key: g for key, g in cells if key in COUNTED_2_1}
    with ProcessPoolExecutor(max_workers=2) as pool:
        scores = pool.map(_proofreading, groups.values(), [lexicon] * len(groups))
        return dict(zip(groups, scores, strict=True))


def test_every_published_cell_with_predictions_is_rescored(predictions, published, stage_scores):
    with_predictions = published.merge(predictions[["setting", "model", "task"]].drop_duplicates())
    cells = with_predictions.merge(stage_scores, on=["setting", "model", "task"], validate="1:1")
    assert len(cells) == len(stage_scores) == 144  # 8 (setting, model) pairs x 18 tasks
    assert (stage_scores["n"] == 500).all() and (stage_scores["n_failed"] == 0).all()


def test_all_non_proofreading_cells_reproduce(rescored):
    cells = rescored[rescored["task"] != "2-1"]
    assert len(cells) == 136
    score_gap = (cells["score"] - cells["score_published"]).abs()
    abstention_gap = (cells["abstention_rate"] - cells["abstention_rate_published"]).abs()
    # results.csv went through a pandas round trip, so a couple of ulps are expected (spec §3.3).
    assert score_gap.max() <= 1e-12, cells.loc[score_gap.idxmax()].to_dict()
    assert abstention_gap.max() == 0.0


def test_proofreading_cells_reproduce_but_the_two_timeout_dependent_ones(published, stage_scores, proofreading):
    cells = published[published["task"] == "2-1"].set_index(["setting", "model"])
    ours = stage_scores[stage_scores["task"] == "2-1"].set_index(["setting", "model"])
    assert len(ours) == 8
    reproduced = {key for key in ours.index if abs(ours.loc[key, "score"] - cells.loc[key, "score"]) <= 1e-6}
    assert reproduced == set(ours.index) - set(KNOWN_2_1)
    assert (ours["abstention_rate"] == 0.0).all() and (cells.loc[ours.index, "abstention_rate"] == 0.0).all()
    for key, result in proofreading.items():  # scored here with their edit counts: the stage's scores
        assert ours.loc[key, "score"] == result.score and result.abstention_rate == 0.0
        if key in KNOWN_2_1:
            published_score, our_score, tp, fp, fn = KNOWN_2_1[key]
            assert cells.loc[key, "score"] == published_score
            counts = (result.score, result.detail["tp"], result.detail["fp"], result.detail["fn"])
            assert counts == (our_score, tp, fp, fn)
    # The reproduced zero-shot GPT4 cell has exactly the edit counts of the official run (spec §10).
    gpt4 = proofreading[("zero_shot", "GPT4")].detail
    assert (gpt4["tp"], gpt4["fp"], gpt4["fn"]) == (265, 2228, 337)


def _cell(predictions: pd.DataFrame, model: str) -> pd.DataFrame:
    rows = (predictions.task == "2-1") & (predictions.setting == "zero_shot") & (predictions.model == model)
    return predictions[rows]


def test_chatglm2_reproduces_when_the_rows_of_the_ambiguous_band_time_out(predictions, lexicon):
    result = _proofreading(_cell(predictions, "chatglm2-6b-hf"), lexicon, max_paths=LOWEST_TIMED_OUT)
    assert result.score == 0.0184
    assert len(result.detail["timed_out"]) == 17 + 5


def test_no_path_threshold_reproduces_lawyer_llama(predictions, lexicon):
    items = _cell(predictions, "lawyer-llama-13b-hf")
    # Below, between and above the path counts of its five rows with the most cheapest paths (34,560 to
    # 3,538,944): more timed-out rows only ever lower the score here, and the fewest false positives is 1715.
    scores = {t: _proofreading(items, lexicon, max_paths=t) for t in (10_000, 100_000, 1_000_000, 5_000_000)}
    assert [s.score for s in scores.values()] == [0.0427, 0.0427, 0.0426, 0.0422]
    tp, fn = scores[100_000].detail["tp"], scores[100_000].detail["fn"]
    reproducing_fp = [fp for fp in range(1500, 1800) if round(f_beta(tp, fp, fn), 4) == 0.0433]
    assert reproducing_fp == [1687, 1688, 1689, 1690, 1691]  # at least 24 fewer than any threshold gives
    assert min(s.detail["fp"] for s in scores.values()) == 1715


def test_zero_shot_dispute_focus_skips_the_compensation_rows(predictions):
    items = predictions[(predictions["setting"] == "zero_shot") & (predictions["task"] == "2-2")]
    items = items[items["model"] == "GPT4"].sort_values("idx")
    refs = items["reference"].tolist()
    oracle = score_task("2-2", refs, refs)
    assert sum(r == "争议焦点类别：赔偿。" for r in refs) == 15
    assert (oracle.score, oracle.n_scored, oracle.abstention_rate) == (1.0, 485, 0.0)

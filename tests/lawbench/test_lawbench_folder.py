"""Reading a LawBench prediction folder, index checks, and the results.csv table."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from steps.lawbench.metrics import ScoringError, read_prediction_folder, results_table, score_predictions
from steps.sources.errors import SourceFormatError


def _write(folder, model, name, records) -> None:
    (folder / model).mkdir(parents=True, exist_ok=True)
    (folder / model / name).write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")


def _record(prediction: str, refr: str) -> dict:
    return {"origin_prompt": [{"role": "HUMAN", "prompt": "题目"}], "prediction": prediction, "refr": refr}


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "zero_shot"
    _write(root, "m1", "1-2.json", {"0": _record("B", "正确答案：B。"), "1": _record("A", "正确答案：B。")})
    _write(root, "m1", "3-7.json", {"0": _record("共8500元", "上文涉及到的犯罪金额:8500.0元。")})
    _write(root, "m1", "lawbench_JEC-KD.json", {"0": _record("B", "正确答案：B。")})
    _write(root, "m2", "1-2.json", {"0": _record("", "正确答案：A。")})
    (root / "results.csv").write_text("task,model_name,score,abstention_rate\n", encoding="utf-8")
    (root / ".hidden").mkdir()
    return root


def test_folder_is_read_and_unknown_task_files_are_reported(folder):
    df, skipped = read_prediction_folder(folder)
    assert skipped == ["m1/lawbench_JEC-KD.json"]
    assert sorted(set(zip(df["model"], df["task"], strict=True))) == [("m1", "1-2"), ("m1", "3-7"), ("m2", "1-2")]
    assert set(df["setting"]) == {"zero_shot"}
    assert df.loc[(df["model"] == "m1") & (df["task"] == "1-2"), "idx"].tolist() == [0, 1]


def test_results_table_has_lawbenchs_columns(folder):
    df, _ = read_prediction_folder(folder)
    table = results_table(score_predictions(df, workers=1))
    assert list(table.columns) == ["task", "model_name", "score", "abstention_rate"]
    rows = {(r.task, r.model_name): (r.score, r.abstention_rate) for r in table.itertuples()}
    assert rows == {("1-2", "m1"): (0.5, 0.0), ("3-7", "m1"): (1.0, 0.0), ("1-2", "m2"): (0.0, 1.0)}


def test_results_table_needs_one_setting():
    scores = pd.DataFrame(
        {
            "setting": ["zero_shot", "one_shot"],
            "model": ["m", "m"],
            "task": ["1-2", "1-2"],
            "score": [1.0, 0.5],
            "abstention_rate": [0.0, 0.0],
            "n": [1, 1],
        }
    )
    with pytest.raises(ValueError, match="one setting"):
        results_table(scores)
    assert results_table(scores, setting="one_shot")["score"].tolist() == [0.5]


def test_malformed_file_names_model_task_and_index(folder):
    _write(folder, "m3", "2-4.json", {"0": _record("侵权", "侵权"), "1": {"origin_prompt": "x", "refr": "侵权"}})
    with pytest.raises(SourceFormatError, match=r"model m3 task 2-4 item 1.*prediction"):
        read_prediction_folder(folder)


def test_gap_in_indices_names_model_task_and_index(folder):
    _write(folder, "m3", "2-4.json", {"0": _record("侵权", "侵权"), "2": _record("侵权", "侵权")})
    with pytest.raises(SourceFormatError, match="model m3 task 2-4 item 1"):
        read_prediction_folder(folder)


def test_score_predictions_rejects_missing_and_duplicate_indices():
    row = {"setting": "zero_shot", "model": "m", "task": "2-4", "prompt": "", "prediction": "侵权", "reference": "侵权"}
    gap = pd.DataFrame([{**row, "idx": 0}, {**row, "idx": 2}])
    with pytest.raises(ScoringError, match="model m task 2-4: index 1 is missing"):
        score_predictions(gap, workers=1)
    twice = pd.DataFrame([{**row, "idx": 0}, {**row, "idx": 0}])
    with pytest.raises(ScoringError, match="index 0 occurs twice"):
        score_predictions(twice, workers=1)

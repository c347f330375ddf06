"""`jurisflow lawbench score` on folders laid out like LawBench's predictions/<setting>/."""

from __future__ import annotations

import csv
import json
import shutil

import pytest
from typer.testing import CliRunner

from flows.cli import app

runner = CliRunner()


def _published(mirror, setting: str) -> dict[tuple[str, str], tuple[float, float]]:
    with open(mirror / "lawbench" / "predictions" / setting / "results.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return {(r["model_name"], r["task"]): (float(r["score"]), float(r["abstention_rate"])) for r in rows}


@pytest.fixture
def folder(tmp_path, mirror):
    """Two mirrored models, three tasks each, plus a file that is not a LawBench task."""
    root = tmp_path / "zero_shot"
    for model in ("GPT4", "chatglm2-6b-hf"):
        (root / model).mkdir(parents=True)
        for task in ("1-2", "3-4", "3-7"):
            shutil.copy(mirror / "lawbench/predictions/zero_shot" / model / f"{task}.json", root / model)
    (root / "GPT4" / "notes.json").write_text("{}", encoding="utf-8")
    return root


def test_scores_match_results_csv_and_unknown_files_are_reported(folder, mirror, tmp_path):
    out = tmp_path / "results.csv"
    result = runner.invoke(app, ["lawbench", "score", "--predictions", str(folder), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "skipped GPT4/notes.json" in result.output
    with open(out, encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["task", "model_name", "score", "abstention_rate"]
    assert len(rows) == 6
    published = _published(mirror, "zero_shot")
    for r in rows:
        score, abstention = published[(r["model_name"], r["task"])]
        assert abs(float(r["score"]) - score) <= 1e-12 and abs(float(r["abstention_rate"]) - abstention) <= 1e-12


def test_a_malformed_file_names_model_task_and_index(folder, tmp_path):
    path = folder / "GPT4" / "3-7.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    del records["3"]["prediction"]
    path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    result = runner.invoke(app, ["lawbench", "score", "--predictions", str(folder), "--out", str(tmp_path / "r.csv")])
    assert result.exit_code == 1
    assert "GPT4" in result.output and "3-7" in result.output and "item 3" in result.output
    assert not (tmp_path / "r.csv").exists()


def test_missing_proofreading_data_is_one_clear_error(folder, tmp_path):
    result = runner.invoke(app, ["lawbench", "score", "--predictions", str(folder), "--out", str(tmp_path / "r.csv"),
                                 "--proofread-data", str(tmp_path / "nowhere")])  # fmt: skip
    assert result.exit_code == 1
    assert "cilin.txt: not found" in result.output

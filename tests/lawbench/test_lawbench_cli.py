"""`jurisflow lawbench score` on folders laid out like LawBench's predictions/<setting>/."""

from __future__ import annotations

import csv
import json
import shutil

import pytest
from typer.testing import CliRunner

from flows.cli import app
from tests.conftest import ROOT

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


def test_the_2_1_lexicon_is_fetched_and_verified_like_every_source(folder, tmp_path, mirror, monkeypatch):
    """The score command reads cilin.txt through the pinned fetch path: a corrupt mirror copy is one line."""
    (folder / "GPT4" / "2-1.json").write_bytes((mirror / "lawbench/predictions/zero_shot/GPT4/2-1.json").read_bytes())
    bad_mirror = tmp_path / "mirror"
    (bad_mirror / "lawbench" / "evaluation").mkdir(parents=True)
    (bad_mirror / "lawbench" / "evaluation" / "cilin.txt").write_bytes(b"Aa01A01= \xc8\xcb\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "sources.yaml").write_bytes((ROOT / "sources.yaml").read_bytes())
    (work / "params.yaml").write_text(f"sources:\n  mirror: {bad_mirror}\n  download: false\n", encoding="utf-8")
    monkeypatch.chdir(work)
    monkeypatch.delenv("JURISFLOW_MIRROR", raising=False)
    out = tmp_path / "r.csv"
    result = runner.invoke(app, ["lawbench", "score", "--predictions", str(folder), "--out", str(out)])
    assert result.exit_code == 1
    error = result.output.strip()
    assert error.count("\n") == 0 and "lawbench/evaluation/cilin.txt: sha256 mismatch" in error, error
    assert not out.exists()

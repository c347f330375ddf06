"""sources.yaml pins each file's row count, and ingest checks it (issue 17, item 6d)."""

from __future__ import annotations

from dataclasses import replace

import pytest
import yaml

from flows.kit.stage import run_stage
from flows.run import ingest
from steps.sources import SourceError, load_manifest
from steps.sources.readers import count_rows
from tests.conftest import ROOT
from tests.helpers import project_paths, sha256_bytes, write_manifest

CASES = "plawbench/practical_case_analysis_250.jsonl"


def test_a_jsonl_cut_at_a_line_boundary_fails_ingest_naming_file_and_rows(tmp_path, mirror, monkeypatch, capsys):
    monkeypatch.delenv("JURISFLOW_MIRROR", raising=False)
    lines = (mirror / CASES).read_bytes().splitlines(keepends=True)
    assert len(lines) == 250
    cut = b"".join(lines[:119])  # a clean cut: every remaining line is a whole record
    fake = tmp_path / "mirror"
    (fake / CASES).parent.mkdir(parents=True)
    (fake / CASES).write_bytes(cut)
    # the checksum is the cut file's (as if it had been re-pinned), so only the row count can notice
    entry = {"path": CASES, "sha256": sha256_bytes(cut), "dataset": "plawbench_case_analysis", "rows": 250}
    manifest = write_manifest(tmp_path / "sources.yaml", [entry])
    params = tmp_path / "params.yaml"
    params.write_text(f"sources:\n  mirror: {fake}\n  download: false\n", encoding="utf-8")
    out = tmp_path / "data" / "interim"
    assert (
        run_stage("ingest", ingest, paths=replace(project_paths(tmp_path), manifest=manifest), params_file=params) == 1
    )
    err = " ".join(capsys.readouterr().err.split())
    assert f"{fake / CASES}: expected 250 rows (sources.yaml {CASES}), found 119" in err
    assert not out.exists() or not any(out.iterdir())


def test_the_same_file_with_its_rows_ingests(tmp_path, mirror, monkeypatch):
    monkeypatch.delenv("JURISFLOW_MIRROR", raising=False)
    data = (mirror / CASES).read_bytes()
    fake = tmp_path / "mirror"
    (fake / CASES).parent.mkdir(parents=True)
    (fake / CASES).write_bytes(data)
    entry = {"path": CASES, "sha256": sha256_bytes(data), "dataset": "plawbench_case_analysis", "rows": 250}
    manifest = write_manifest(tmp_path / "sources.yaml", [entry])
    params = tmp_path / "params.yaml"
    params.write_text(f"sources:\n  mirror: {fake}\n  download: false\n", encoding="utf-8")
    assert (
        run_stage("ingest", ingest, paths=replace(project_paths(tmp_path), manifest=manifest), params_file=params) == 0
    )


def test_count_rows_per_format(tmp_path):
    cases = {
        "a.csv": "model,score\nA,1\nB,2\n\n",
        "b.jsonl": '{"x": 1}\n\n{"x": 2}\n{"x": 3}\n',
        "c.json": '{"x": 1}\n{"x": 2}\n',  # JSON Lines under a .json name (JuDGE's test.json)
        "d.json": '[\n  {"x": 1},\n  {"x": 2}\n]\n',
        "e.json": '{\n  "task a": [1, 2],\n  "task b": [3]\n}\n',
        "f.json": '{"one": "line"}\n',
    }
    expected = {"a.csv": 2, "b.jsonl": 3, "c.json": 2, "d.json": 2, "e.json": 2, "f.json": 1}
    for name, text in cases.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        assert count_rows(tmp_path / name) == expected[name], name


@pytest.mark.parametrize("rows", [-1, "many", 2.5, True])
def test_a_bad_rows_value_in_the_manifest_is_named(tmp_path, rows):
    entry = {"path": "x.json", "sha256": "0" * 64, "dataset": "mile", "rows": rows}
    path = write_manifest(tmp_path / "sources.yaml", [entry])
    with pytest.raises(SourceError, match=r"files\[0\] \(x.json\): rows must be a whole number"):
        load_manifest(path)


def test_every_pinned_file_has_its_rows():
    doc = yaml.safe_load((ROOT / "sources.yaml").read_text(encoding="utf-8"))
    missing = [f["path"] for f in doc["files"] if "rows" not in f]
    assert doc["files"] and missing == []


@pytest.mark.slow
def test_the_pinned_rows_match_the_mirror(mirror):
    manifest = load_manifest(ROOT / "sources.yaml")
    found = {f.path: count_rows(mirror / f.path) for f in manifest.files}
    wrong = {f.path: (f.rows, found[f.path]) for f in manifest.files if found[f.path] != f.rows}
    assert wrong == {}

"""The ingest flow end to end on small crafted mirrors: success, and failures that leave nothing behind."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pandas as pd

from flows.kit.stage import run_stage
from flows.run import ingest
from tests.helpers import project_paths, sha256_bytes, write_manifest


def _project(tmp_path: Path, mirror: Path, files: dict[str, bytes], datasets: dict[str, str]) -> tuple[Path, Path]:
    """Write the files into a fake mirror and return (manifest, params) paths describing them."""
    fake = tmp_path / "mirror"
    for rel, data in files.items():
        (fake / rel).parent.mkdir(parents=True, exist_ok=True)
        (fake / rel).write_bytes(data)
    manifest = write_manifest(
        tmp_path / "sources.yaml",
        [{"path": rel, "sha256": sha256_bytes(data), "dataset": datasets[rel]} for rel, data in files.items()],
    )
    params = tmp_path / "params.yaml"
    params.write_text(f"sources:\n  mirror: {fake}\n  download: false\n", encoding="utf-8")
    return manifest, params


def _real(mirror: Path, rel: str) -> bytes:
    return (mirror / rel).read_bytes()


def test_ingest_writes_validated_tables(tmp_path, mirror, monkeypatch):
    monkeypatch.delenv("JURISFLOW_MIRROR", raising=False)
    files = {
        "mile/evaluate_data.json": _real(mirror, "mile/evaluate_data.json"),
        "plawbench/public_legal_consultation_18.json": _real(mirror, "plawbench/public_legal_consultation_18.json"),
    }
    manifest, params = _project(
        tmp_path,
        mirror,
        files,
        {"mile/evaluate_data.json": "mile", "plawbench/public_legal_consultation_18.json": "plawbench_consultation"},
    )
    out = tmp_path / "data" / "interim"
    code = run_stage("ingest", ingest, paths=replace(project_paths(tmp_path), manifest=manifest), params_file=params)
    assert code == 0
    assert len(pd.read_parquet(out / "mile.parquet")) == 693
    assert len(pd.read_parquet(out / "plawbench_consultation.parquet")) == 18
    assert not list(out.glob(".*tmp"))


def test_a_broken_file_fails_the_stage_and_writes_nothing(tmp_path, mirror, monkeypatch, capsys):
    monkeypatch.delenv("JURISFLOW_MIRROR", raising=False)
    lines = _real(mirror, "plawbench/practical_case_analysis_250.jsonl").decode().splitlines()
    lines[6] = lines[6][:50]  # line 7 is cut off mid-record
    broken = ("\n".join(lines) + "\n").encode()
    files = {
        "mile/evaluate_data.json": _real(mirror, "mile/evaluate_data.json"),
        "plawbench/practical_case_analysis_250.jsonl": broken,
    }
    manifest, params = _project(
        tmp_path,
        mirror,
        files,
        {"mile/evaluate_data.json": "mile", "plawbench/practical_case_analysis_250.jsonl": "plawbench_case_analysis"},
    )
    out = tmp_path / "data" / "interim"
    code = run_stage("ingest", ingest, paths=replace(project_paths(tmp_path), manifest=manifest), params_file=params)
    assert code == 1
    err = capsys.readouterr().err
    assert "practical_case_analysis_250.jsonl: line 7 column" in err and "invalid JSON Lines record" in err
    assert not out.exists() or not any(out.iterdir())  # the valid MILE table was not written either


def test_a_schema_violation_fails_the_stage(tmp_path, mirror, monkeypatch, capsys):
    monkeypatch.delenv("JURISFLOW_MIRROR", raising=False)
    records = json.loads(_real(mirror, "mile/evaluate_data.json"))
    records[4]["plaintiff_type"] = "robot"
    files = {"mile/evaluate_data.json": json.dumps(records, ensure_ascii=False).encode()}
    manifest, params = _project(tmp_path, mirror, files, {"mile/evaluate_data.json": "mile"})
    code = run_stage("ingest", ingest, paths=replace(project_paths(tmp_path), manifest=manifest), params_file=params)
    assert code == 1
    err = capsys.readouterr().err
    assert "row 4 (instance_id=mile/5): column 'plaintiff_type' fails isin" in err.replace("\n", "")
    assert not (tmp_path / "data/interim/mile.parquet").exists()


def test_missing_mirror_file_fails_with_fix(tmp_path, mirror, monkeypatch, capsys):
    monkeypatch.delenv("JURISFLOW_MIRROR", raising=False)
    manifest, params = _project(
        tmp_path, mirror, {"mile/evaluate_data.json": b"[]"}, {"mile/evaluate_data.json": "mile"}
    )
    (tmp_path / "mirror/mile/evaluate_data.json").unlink()
    code = run_stage("ingest", ingest, paths=replace(project_paths(tmp_path), manifest=manifest), params_file=params)
    assert code == 1
    err = capsys.readouterr().err.replace("\n", "")
    assert "mile/evaluate_data.json: not in the mirror" in err and "downloads are disabled" in err

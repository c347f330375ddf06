"""docs/performance.md is what perf/write_docs.py writes from the committed records, and a perf script's `--record`
appends records that the page then shows."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from types import ModuleType

import pytest

from tests.conftest import ROOT


def _module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"perf_{name}", ROOT / "perf" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_is_written_from_the_committed_records():
    done = subprocess.run(
        [sys.executable, "perf/write_docs.py", "--check"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    page = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    assert page.count("\n## ") == len({r["topic"] for _, r in _module("write_docs").read_records()})
    assert "| figure | value | command | date | commit | machine |" in page


def test_the_check_fails_when_a_record_changes(tmp_path, monkeypatch):
    """A changed record makes a different page, so the check above fails until `make perf-docs` is run."""
    write_docs = _module("write_docs")
    for path in (ROOT / "perf" / "results").glob("*.jsonl"):
        (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    first = sorted(tmp_path.glob("*.jsonl"))[0]
    changed = [
        json.loads(line) | {"value": "a changed value"} for line in first.read_text(encoding="utf-8").splitlines()
    ]
    first.write_text("".join(json.dumps(r) + "\n" for r in changed), encoding="utf-8")
    page = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    assert write_docs.render(write_docs.read_records(tmp_path)) != page
    assert "a changed value" in write_docs.render(write_docs.read_records(tmp_path))
    first.write_text("not json\n", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"line 1: not JSON"):
        write_docs.read_records(tmp_path)


def test_a_recorded_figure_reaches_the_page(tmp_path, monkeypatch):
    """`record` appends one line per figure with the command (without --record), date, commit and machine; the page
    shows the newest value of each figure under its topic."""
    record, write_docs = _module("record"), _module("write_docs")
    monkeypatch.setattr(record, "RESULTS", tmp_path)
    monkeypatch.setattr(sys, "argv", [str(ROOT / "perf" / "cli_startup.py"), "--repeat", "5", "--record"])
    record.record("Read-only commands", [("`jurisflow results`", "1.49 s"), ("`jurisflow --help`", "0.19 s")])
    record.record("Read-only commands", [("`jurisflow results`", "1.20 s")])
    rows = [json.loads(line) for line in (tmp_path / "cli_startup.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 3
    assert rows[0]["command"] == ".venv/bin/python perf/cli_startup.py --repeat 5"
    assert set(rows[0]) == set(record.FIELDS) and rows[0]["commit"] not in ("", "unknown")
    assert "cores" in rows[0]["machine"] and rows[0]["date"][:2] == "20"
    page = write_docs.render(write_docs.read_records(tmp_path))
    assert "## Read-only commands" in page
    assert "| `jurisflow results` | 1.20 s |" in page and "1.49 s" not in page
    assert "`perf/cli_startup.py`: CPU seconds of the read-only `jurisflow` commands" in page


def test_every_script_whose_figures_are_recorded_can_record():
    """A results file named after a perf script comes from that script: it takes --record and calls record()."""
    for path in sorted((ROOT / "perf" / "results").glob("*.jsonl")):
        script = ROOT / "perf" / f"{path.stem}.py"
        if not script.exists():
            continue  # figures measured by hand (e.g. `make run` on a fresh clone), carried over as records
        text = script.read_text(encoding="utf-8")
        assert "add_flag(" in text and "record(" in text, f"{script.name} does not write its records"

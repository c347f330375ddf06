"""An expected error is printed once: run_stage's line, not again by each Prefect logger (issue 17, item 6e)."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from collections.abc import Callable, Iterator

import pytest
from prefect import flow, task

from flows.kit.stage import run_stage
from tests.conftest import ROOT

pytestmark = pytest.mark.usefixtures("prefect_on")  # what Prefect records is under test

MESSAGE = "data/x.parquet: row 3: column 'score' out of range"


@pytest.fixture
def printed(capfd) -> Iterator[Callable[[], str]]:
    """Everything the stage prints: run_stage's console plus what Prefect's own handlers write (their streams were
    bound when Prefect configured logging, so they are redirected here, filters and all)."""
    sink = io.StringIO()
    handlers = {
        h
        for name in ("", "prefect", "prefect.flow_runs", "prefect.task_runs")
        for h in logging.getLogger(name).handlers
        if isinstance(h, logging.StreamHandler)
    }
    assert handlers, "no Prefect console handler found"
    old = {h: h.setStream(sink) for h in handlers}
    yield lambda: "".join(capfd.readouterr()) + sink.getvalue()
    for handler, stream in old.items():
        handler.setStream(stream)


@task
def _failing_step() -> None:
    raise ValueError(MESSAGE)


@flow
def _stage_with_a_bad_input() -> str:
    _failing_step()
    return "never"


def test_an_expected_error_raised_in_a_task_is_printed_once(printed):
    assert run_stage("bad_input", _stage_with_a_bad_input) == 1
    text = printed()
    assert text.count(MESSAGE) == 1, text
    assert "Traceback" not in text


@task
def _crashing_step() -> None:
    raise KeyError("surprise")


@flow
def _stage_with_a_bug() -> str:
    _crashing_step()
    return "never"


def test_an_unexpected_error_keeps_its_traceback(printed):
    assert run_stage("buggy", _stage_with_a_bug) == 1
    text = printed()
    assert "Traceback" in text and "unexpected error: KeyError" in text


@pytest.mark.slow
def test_a_stage_process_prints_its_expected_error_once(tmp_path):
    (tmp_path / "params.yaml").write_text("agents:\n  oracle:\n    model: scripted/oracle\n", encoding="utf-8")
    (tmp_path / "prefect.toml").write_bytes((ROOT / "prefect.toml").read_bytes())
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PREFECT_HOME": str(tmp_path / "prefect-home")}
    done = subprocess.run(
        [sys.executable, "-m", "flows.run", "j1_judge", "nobody"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    text = done.stdout + done.stderr
    assert done.returncode == 1, text
    assert text.count("unknown agent 'nobody'") == 1, text

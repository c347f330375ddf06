"""Writing outputs: a disk-full or read-only error names the path in one line, and run.json is written last, never
beside the outputs of an earlier run (issue 17, item 6c)."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pandas as pd
import pytest
from prefect import flow

import steps.tables as tables
from flows.kit.stage import run_stage
from steps.runs import begin_run, run_id, write_run_json
from steps.tables import OutputError, to_arrow, write_parquet_atomic, write_text_atomic
from tests.helpers import project_paths, write_lawbench_interim


def _fail_with(code: int):
    def fail(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    return fail


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES])
def test_a_failed_parquet_write_names_the_path_and_keeps_the_earlier_file(tmp_path, monkeypatch, code):
    path = tmp_path / "out" / "scores.parquet"
    write_parquet_atomic(to_arrow(pd.DataFrame({"x": [1, 2]})), path)
    before = path.read_bytes()
    monkeypatch.setattr(tables.pq, "write_table", _fail_with(code))
    with pytest.raises(OutputError) as caught:
        write_parquet_atomic(to_arrow(pd.DataFrame({"x": [3]})), path)
    message = str(caught.value)
    assert message.startswith(f"{path}: cannot write ({errno.errorcode[code]}: {os.strerror(code)})")
    assert "\n" not in message and caught.value.errno == code
    assert path.read_bytes() == before and sorted(p.name for p in path.parent.iterdir()) == ["scores.parquet"]


def test_a_failed_rename_names_the_path_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "reports" / "j1.md"
    monkeypatch.setattr(tables.os, "replace", _fail_with(errno.EROFS))
    with pytest.raises(OutputError, match=r"j1.md: cannot write \(EROFS: Read-only file system\)"):
        write_text_atomic(path, "# report\n")
    assert list(path.parent.iterdir()) == []


def test_a_stage_whose_output_cannot_be_written_fails_with_the_one_line(tmp_path, monkeypatch, capsys):
    target = tmp_path / "reports" / "r.md"

    @flow
    def writes_a_report() -> str:
        write_text_atomic(target, "text\n")
        return "written"

    monkeypatch.setattr(tables.Path, "write_text", _fail_with(errno.ENOSPC))
    assert run_stage("report", writes_a_report) == 1
    out = capsys.readouterr()
    text = out.err + out.out
    assert f"{target}: cannot write (ENOSPC: No space left on device)" in " ".join(text.split())
    assert "Traceback" not in text


def test_run_json_is_written_last_and_never_beside_an_earlier_runs_outputs(tmp_path):
    run_dir = tmp_path / "runs" / "oracle"
    old = {"benchmark": "x", "agent": "oracle", "limit": 4}
    new = {**old, "limit": 8}
    write_text_atomic(run_dir / "scores.parquet", "old outputs")
    write_run_json(run_dir, old)
    assert begin_run(run_dir, old) == run_id(old) and (run_dir / "run.json").is_file()  # same run: kept
    assert begin_run(run_dir, new) == run_id(new)
    assert not (run_dir / "run.json").exists()  # the old outputs no longer claim any run while the new one works
    write_run_json(run_dir, new)
    assert json.loads((run_dir / "run.json").read_text(encoding="utf-8"))["run_id"] == run_id(new)


def test_a_stage_that_fails_after_a_parameter_change_leaves_no_new_run_json_beside_old_outputs(
    tmp_path, interim, monkeypatch
):
    import steps.lawbench.stages as body
    from flows.run import lawbench_predict

    paths = project_paths(tmp_path, interim)
    args = {"agent_name": "oracle", "setting": "zero_shot", "paths": paths}
    assert run_stage("lawbench_predict", lawbench_predict, params_file=_params(tmp_path, 2), **args) == 0
    run = paths.run("lawbench", "oracle", "zero_shot")
    old_rid = json.loads((run / "run.json").read_text(encoding="utf-8"))["run_id"]

    def disk_full(*a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(body, "score_run", disk_full)  # the predictions are written, then the disk fills
    assert run_stage("lawbench_predict", lawbench_predict, params_file=_params(tmp_path, 3), **args) == 1
    scores_rid = set(pd.read_parquet(run / "scores.parquet").run_id)
    assert scores_rid == {old_rid}
    assert not (run / "run.json").exists() or json.loads((run / "run.json").read_text())["run_id"] == old_rid


@pytest.fixture(scope="module")
def interim(mirror, manifest, tmp_path_factory) -> Path:
    return write_lawbench_interim(mirror, manifest, tmp_path_factory.mktemp("interim"))


def _params(tmp_path: Path, limit: int) -> Path:
    path = tmp_path / f"params-{limit}.yaml"
    path.write_text(
        f"agents:\n  oracle:\n    model: scripted/oracle\nllm:\n  cache_dir: {tmp_path / 'cache'}\n"
        f"lawbench:\n  limit: {limit}\n",
        encoding="utf-8",
    )
    return path

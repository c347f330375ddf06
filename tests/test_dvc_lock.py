"""`python -m flows.dvc_cli` (flows/dvc_cli.py): DVC with dvc.lock read by the C loader and rewritten from the blocks
of the previous rewrite writes what DVC writes."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from dvc.utils.serialize import _yaml

from flows.dvc_cli import LockWriter, command, parse_lock_for_update
from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # runs stages end to end: handed out before the quick modules

# A stage entry with what params and paths can hold: CJK text, nulls, floats, booleans, nesting, empty containers,
# strings YAML would misread unquoted, and a command longer than the dumper's line width.
UNUSUAL = {
    "cmd": "python -m flows.plawbench_judge oracle --a-long-option-to-pass-the-line-width-of-eighty " + "x" * 60,
    "deps": [{"path": "steps/法律/时效.py", "hash": "md5", "md5": "0" * 32, "size": 12}],
    "params": {
        "params.yaml": {
            "plawbench.scenarios": ["consultation", "法律时效敏感度", "yes", "null", "1.0", "a: b", " lead"],
            "plawbench.limit": None,
            "j1.rate": 0.1,
            "j1.tiny": 1e-05,
            "j1.whole": 2.0,
            "ucl.on": True,
            "mile.seed": 0,
            "mile.nested": {"a": [], "b": {}, "c": [{"d": None}]},
            "mile.text": "line one\nline two",
        }
    },
    "outs": [{"path": "data/中文.parquet", "hash": "md5", "md5": "f" * 32, "size": 0}],
}


def _rewrite(path: Path, writer: LockWriter | None, monkeypatch: pytest.MonkeyPatch, change: str = "1") -> bytes:
    """DVC's own lock rewrite (`modify_yaml`) of `path`, adding UNUSUAL and changing the first stage's first dep; with
    `writer`, through it (as `flows.dvc_cli.install` sets it up), else as DVC does."""
    with monkeypatch.context() as patch:
        if writer is not None:
            patch.setattr(_yaml, "parse_yaml_for_update", writer.parse)
            patch.setattr(_yaml, "_dump", writer.dump)
        with _yaml.modify_yaml(path) as data:
            first = next(iter(data["stages"].values()))
            first["deps"][0]["md5"] = change * 32
            data["stages"]["unusual"] = UNUSUAL
    return path.read_bytes()


def test_the_lock_comes_out_byte_for_byte_as_dvc_writes_it(tmp_path, monkeypatch):
    ours, theirs = tmp_path / "ours.lock", tmp_path / "theirs.lock"
    for path in (ours, theirs):
        shutil.copyfile(ROOT / "dvc.lock", path)
    assert type(parse_lock_for_update(ours.read_text(encoding="utf-8"), ours)) is dict  # the C loader's plain dicts
    writer = LockWriter(_yaml._dump)
    assert _rewrite(ours, writer, monkeypatch) == _rewrite(theirs, None, monkeypatch)
    # again, now that the file holds the unusual entry, reading back what the writer wrote and reusing its blocks
    assert _rewrite(ours, writer, monkeypatch, "2") == _rewrite(theirs, None, monkeypatch, "2")
    assert "法律时效敏感度" in ours.read_text(encoding="utf-8")
    # a file changed behind the writer's back is read again, not taken from what it wrote last
    text = ours.read_text(encoding="utf-8").replace("2" * 32, "3" * 32)
    ours.write_text(text, encoding="utf-8")
    theirs.write_text(text, encoding="utf-8")
    assert _rewrite(ours, writer, monkeypatch, "4") == _rewrite(theirs, None, monkeypatch, "4")


def test_what_the_writer_reads_back_is_a_copy_of_what_it_wrote(tmp_path):
    writer = LockWriter(_yaml._dump)
    data = parse_lock_for_update((ROOT / "dvc.lock").read_text(encoding="utf-8"), "dvc.lock")
    stream = io.StringIO()
    writer.dump(data, stream)
    again = writer.parse(stream.getvalue(), "dvc.lock")
    assert again == data == parse_lock_for_update(stream.getvalue(), "dvc.lock") and again is not data
    next(iter(again["stages"].values()))["cmd"] = "changed"
    assert writer.parse(stream.getvalue(), "dvc.lock") == data  # a second read is not the first one's changed copy


def test_an_object_in_two_stages_is_dumped_whole_with_its_anchor(tmp_path):
    """The dumper writes an object met twice once, with an anchor and an alias: stage by stage it would be written
    twice, so such data goes to DVC's dumper whole."""
    shared = {"params.yaml": {"rate": 0.5}}
    data = {"schema": "2.0", "stages": {"a": {"cmd": "a", "params": shared}, "b": {"cmd": "b", "params": shared}}}
    ours, theirs = io.StringIO(), io.StringIO()
    LockWriter(_yaml._dump).dump(data, ours)
    _yaml._dump(data, theirs)
    assert ours.getvalue() == theirs.getvalue() and "&id001" in ours.getvalue()


def test_a_lock_with_a_comment_keeps_it(tmp_path, monkeypatch):
    lock = tmp_path / "dvc.lock"
    text = (ROOT / "dvc.lock").read_text(encoding="utf-8")
    lock.write_text("# kept by hand\n" + text, encoding="utf-8")
    assert "# kept by hand" in _rewrite(lock, LockWriter(_yaml._dump), monkeypatch).decode()


def _project(root: Path) -> Path:
    root.mkdir()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run([Path(sys.executable).parent / "dvc", "init", "-q"], cwd=root, check=True, env=env)
    (root / "params.yaml").write_text("greeting: 你好\nrate: 0.5\nlimit:\n", encoding="utf-8")
    (root / "dvc.yaml").write_text(
        "stages:\n"
        "  hello:\n"
        "    cmd: python -c \"open('out.txt', 'w').write('hi')\"\n"
        "    params: [greeting, rate, limit]\n"
        "    outs: [out.txt]\n",
        encoding="utf-8",
    )
    return root


def test_repro_through_the_module_locks_what_dvc_repro_locks(tmp_path):
    ours, theirs = _project(tmp_path / "ours"), _project(tmp_path / "theirs")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("JURISFLOW_STAGE_SERVER", None)
    done = subprocess.run(command("repro"), cwd=ours, env=env, capture_output=True, text=True)
    assert done.returncode == 0 and "Running stage 'hello'" in done.stdout, done.stdout + done.stderr
    subprocess.run([Path(sys.executable).parent / "dvc", "repro"], cwd=theirs, env=env, check=True, capture_output=True)
    assert (ours / "dvc.lock").read_bytes() == (theirs / "dvc.lock").read_bytes()
    assert "你好" in (ours / "dvc.lock").read_text(encoding="utf-8")
    status = subprocess.run(command("status"), cwd=ours, env=env, capture_output=True, text=True)
    assert status.returncode == 0 and "up to date" in status.stdout, status.stdout

"""`python -m flows.dvc_cli` (flows/dvc_cli.py): DVC with dvc.lock read by the C loader writes what DVC writes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from dvc.utils.serialize import _yaml

from flows.dvc_cli import command, parse_lock_for_update
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


def _rewrite(path: Path, fast: bool, monkeypatch: pytest.MonkeyPatch) -> bytes:
    """DVC's own lock rewrite (`modify_yaml`) of `path`, adding UNUSUAL and changing the first stage's first dep."""
    with monkeypatch.context() as patch:
        if fast:
            patch.setattr(_yaml, "parse_yaml_for_update", parse_lock_for_update)
        with _yaml.modify_yaml(path) as data:
            first = next(iter(data["stages"].values()))
            first["deps"][0]["md5"] = "1" * 32
            data["stages"]["unusual"] = UNUSUAL
    return path.read_bytes()


def test_the_lock_comes_out_byte_for_byte_as_dvc_writes_it(tmp_path, monkeypatch):
    ours, theirs = tmp_path / "ours.lock", tmp_path / "theirs.lock"
    for path in (ours, theirs):
        shutil.copyfile(ROOT / "dvc.lock", path)
    assert type(parse_lock_for_update(ours.read_text(encoding="utf-8"), ours)) is dict  # the C loader's plain dicts
    assert _rewrite(ours, True, monkeypatch) == _rewrite(theirs, False, monkeypatch)
    # and again, now that the file holds the unusual entry
    assert _rewrite(ours, True, monkeypatch) == _rewrite(theirs, False, monkeypatch)
    assert "法律时效敏感度" in ours.read_text(encoding="utf-8")


def test_a_lock_with_a_comment_keeps_it(tmp_path, monkeypatch):
    lock = tmp_path / "dvc.lock"
    text = (ROOT / "dvc.lock").read_text(encoding="utf-8")
    lock.write_text("# kept by hand\n" + text, encoding="utf-8")
    assert "# kept by hand" in _rewrite(lock, True, monkeypatch).decode()


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

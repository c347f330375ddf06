"""An object altered in the DVC remote is never checked out: the tracked remote verifies what it downloads (`dvc
pull` fails, the table is not there, `dvc status` says so), and `jurisflow pull` fails naming the object's path in
the remote and the hash its bytes have, also from a remote added without `verify` (issue 35, item 1)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd

from tests.conftest import ROOT

BIN = Path(sys.executable).parent
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
RIGHT = pd.DataFrame({"agent": ["a", "b"], "score": [0.25, 0.75]})
WRONG = pd.DataFrame({"agent": ["a", "b"], "score": [0.95, 0.75]})  # a valid table: only its values are wrong


def sh(args: list, cwd: Path, ok: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    env.pop("DVC_ROOT", None)
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert not ok or done.returncode == 0, f"{args}: {done.stdout[-2000:]} {done.stderr[-2000:]}"
    return done


def pushed(tmp_path: Path) -> tuple[Path, Path]:
    """A clone of this repository's DVC configuration whose remote `local` is `tmp_path/remote`, holding a table
    and a note (`dvc add`ed, committed, pushed). Returns (the project, the remote)."""
    first, remote = tmp_path / "first", tmp_path / "remote"
    (first / ".dvc").mkdir(parents=True)
    for name in ("config", ".gitignore"):
        shutil.copy(ROOT / ".dvc" / name, first / ".dvc" / name)
    (first / "out").mkdir()
    RIGHT.to_parquet(first / "out" / "scores.parquet")
    (first / "out" / "note.txt").write_text("intact\n", encoding="utf-8")
    sh(["git", "init", "-q"], first)
    sh([BIN / "dvc", "remote", "modify", "--local", "local", "url", remote], first)
    sh([BIN / "dvc", "add", "-q", "out"], first)
    sh([BIN / "dvc", "push", "-q"], first)
    sh(["git", "add", "-A"], first)
    sh([*GIT, "commit", "-qm", "table"], first)
    return first, remote


def corrupt(remote: Path, table: Path) -> Path:
    """Overwrite the remote's object of `table` (found by its bytes) with another valid table; its path."""
    data = table.read_bytes()
    (obj,) = [p for p in remote.rglob("*") if p.is_file() and p.read_bytes() == data]
    obj.chmod(0o644)
    WRONG.to_parquet(obj)
    return obj


def clone(first: Path, dest: Path, remote: Path, *remote_args: str) -> Path:
    sh(["git", "clone", "-q", first, dest], first.parent)
    sh([BIN / "dvc", "remote", "modify", "--local", "local", "url", remote], dest)
    for args in remote_args:
        sh([BIN / "dvc", "remote", *args.split()], dest)
    return dest


def test_the_tracked_remote_verifies_downloads_so_a_corrupt_object_fails_the_pull(tmp_path):
    first, remote = pushed(tmp_path)
    corrupt(remote, first / "out" / "scores.parquet")
    second = clone(first, tmp_path / "second", remote)
    pulled = sh([BIN / "dvc", "pull"], second, ok=False)
    assert pulled.returncode != 0, pulled.stdout
    assert not (second / "out" / "scores.parquet").exists()  # nothing wrong checked out
    assert "not in cache" in sh([BIN / "dvc", "status"], second).stdout


def test_jurisflow_pull_names_the_corrupt_object_also_from_a_remote_without_verify(tmp_path):
    first, remote = pushed(tmp_path)
    obj = corrupt(remote, first / "out" / "scores.parquet")
    # a user's own remote, added the way the README shows, without `verify`: it is the clone's default
    team = tmp_path / "team"
    shutil.copytree(remote, team)
    second = clone(first, tmp_path / "second", remote, f"add --local -d team {team}")
    team_obj = team / obj.relative_to(remote)
    pulled = sh([BIN / "jurisflow", "pull"], second, ok=False)
    assert pulled.returncode == 1
    lines = pulled.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pull failed: out/scores.parquet: "), pulled.stderr
    assert f"{team_obj} is corrupt: its bytes hash to md5 " in lines[0]
    assert not (second / "out" / "scores.parquet").exists()
    assert "not in cache" in sh([BIN / "dvc", "status"], second).stdout

    # an object gone from the remote is named too; with both objects whole the pull succeeds
    third = clone(first, tmp_path / "third", remote)
    obj.unlink()
    missing = sh([BIN / "jurisflow", "pull", "out"], third, ok=False)
    assert missing.returncode == 1 and f"{obj} is missing" in missing.stderr, missing.stderr
    shutil.copy(first / ".dvc" / "cache" / obj.relative_to(remote), obj)
    assert "pulled: " in sh([BIN / "jurisflow", "pull"], third).stdout
    assert pd.read_parquet(third / "out" / "scores.parquet").equals(RIGHT)
    assert "up to date" in sh([BIN / "dvc", "status"], third).stdout

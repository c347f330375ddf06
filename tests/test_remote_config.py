"""The DVC remote configured out of the box: `.dvc/config` makes `local` the default remote, a directory outside the
repository (`~` expanded by DVC), and `dvc remote modify --local` points it elsewhere without touching a tracked
file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

BIN = Path(sys.executable).parent
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]


def remote_of(root: Path) -> tuple[str, Path]:
    """The default remote's name and directory, as DVC resolves them in the project at `root`."""
    from dvc.repo import Repo

    with Repo(str(root)) as repo:
        remote = repo.cloud.get_remote()
        return remote.name, Path(remote.path)


def project(root: Path) -> Path:
    """A git repository holding this repository's tracked DVC configuration (`.dvc/config`, `.dvc/.gitignore`)."""
    (root / ".dvc").mkdir(parents=True)
    for name in ("config", ".gitignore"):
        shutil.copy(ROOT / ".dvc" / name, root / ".dvc" / name)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "dvc config"], cwd=root, check=True)
    return root


def test_the_default_remote_is_a_directory_outside_the_repository(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = project(tmp_path / "clone")
    name, path = remote_of(root)
    assert name == "local"
    assert path == tmp_path / "home" / ".cache" / "jurisflow" / "dvc-remote"  # `~`: the user's, not the clone's
    assert not path.is_relative_to(root)


def test_a_local_override_moves_the_remote_and_leaves_the_tracked_files_alone(tmp_path):
    root = project(tmp_path / "clone")
    tracked = (root / ".dvc" / "config").read_bytes()
    elsewhere = tmp_path / "team-remote"
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(
        [BIN / "dvc", "remote", "modify", "--local", "local", "url", str(elsewhere)], cwd=root, env=env, check=True
    )
    assert remote_of(root) == ("local", elsewhere)
    assert (root / ".dvc" / "config").read_bytes() == tracked
    assert str(elsewhere) in (root / ".dvc" / "config.local").read_text(encoding="utf-8")
    status = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, check=True)
    assert status.stdout == ""  # .dvc/config.local is ignored by git

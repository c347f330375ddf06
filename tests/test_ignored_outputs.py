"""Outputs never fall into git (issue 37, item 4). A failed `dvc repro` drops every `.gitignore` entry DVC wrote
during that call, the finished stages' too (DVC's scm_context, treeverse/dvc#11091): their outputs became untracked
files, and the reports that read a `runs` folder whose `.gitignore` changed looked stale to `dvc status`. The root
`.gitignore` therefore ignores every cached out of dvc.yaml itself; DVC finds them ignored already and writes (and
drops) no entry of its own."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import yaml

from tests.conftest import ROOT

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.excludesFile=/dev/null"]


def outs(dvc_yaml: Path) -> dict[str, bool]:
    """Every out, metric and plot output of the stages of `dvc_yaml` (templated paths as written), and whether DVC
    caches it (else git tracks it: `cache: false`)."""
    found: dict[str, bool] = {}
    for stage in yaml.safe_load(dvc_yaml.read_text(encoding="utf-8"))["stages"].values():
        for kind in ("outs", "metrics", "plots"):
            for out in stage.get(kind) or []:
                path, options = next(iter(out.items())) if isinstance(out, dict) else (out, {})
                found[path] = bool((options or {}).get("cache", True))
    return found


def probe(path: str) -> str:
    """A path git can match for out `path`: the out itself, or a file inside it for a folder (an out without a
    suffix: `reports/html`, `reports/transcripts/<agent>`); template values become `x`."""
    path = re.sub(r"\$\{[^}]*\}", "x", path)
    return path if Path(path).suffix else f"{path}/x.md"


def ignored_by(gitignore: Path, paths: list[str], folder: Path) -> set[str]:
    """Which of `paths` a git repository at `folder` holding only `gitignore` (no global or system excludes)
    ignores."""
    folder.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    (folder / ".gitignore").write_text(gitignore.read_text(encoding="utf-8"), encoding="utf-8")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(
        [*GIT, "check-ignore", "--no-index", "--stdin"],
        cwd=folder,
        input="\n".join(paths) + "\n",
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode in (0, 1), done.stderr  # 1: none ignored
    return set(done.stdout.splitlines())


def test_the_root_gitignore_ignores_every_cached_out_and_no_tracked_one(tmp_path):
    found = outs(ROOT / "dvc.yaml")
    cached = sorted({probe(p) for p, is_cached in found.items() if is_cached})
    tracked = sorted({probe(p) for p, is_cached in found.items() if not is_cached})
    assert cached and tracked
    ignored = ignored_by(ROOT / ".gitignore", [*cached, *tracked, "dvc_plots/index.html"], tmp_path / "repo")
    assert [p for p in cached if p not in ignored] == [], "a cached out no pattern of the root .gitignore matches"
    assert [p for p in tracked if p in ignored] == [], "a `cache: false` out (tracked by git) is ignored"
    assert "dvc_plots/index.html" in ignored


def test_the_check_fails_on_a_stage_without_a_pattern(tmp_path):
    stage = {"cmd": "true", "outs": ["data/new/table.json", {"reports/new.md": {"cache": False}}]}
    (tmp_path / "dvc.yaml").write_text(yaml.safe_dump({"stages": {"new": stage}}), encoding="utf-8")
    found = outs(tmp_path / "dvc.yaml")
    assert found == {"data/new/table.json": True, "reports/new.md": False}
    assert ignored_by(ROOT / ".gitignore", list(found), tmp_path / "repo") == set()

"""Outputs never fall into git (issue 37, item 4). A failed `dvc repro` drops every `.gitignore` entry DVC wrote
during that call, the finished stages' too (DVC's scm_context, treeverse/dvc#11091): their outputs became untracked
files, and the reports that read a `runs` folder whose `.gitignore` changed looked stale to `dvc status`. The root
`.gitignore` therefore ignores every cached out of dvc.yaml itself; DVC finds them ignored already and writes (and
drops) no entry of its own."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT
from tests.helpers import copy_project, repro

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.excludesFile=/dev/null"]
AGENT = "a"  # the copy's one agent: new, so no `.gitignore` of DVC's is there for its outputs yet
FAILING = "ucl_simulate"  # fails in the middle of the copy's pipeline, after reports that read `runs` folders


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


# The copy's stages: each writes its outputs (a file per path, one file inside a folder) and nothing else.
WRITER = """import sys
from pathlib import Path

for out in map(Path, sys.argv[1:]):
    written = out if out.suffix else out / "x.md"
    written.parent.mkdir(parents=True, exist_ok=True)
    written.write_text(str(out), encoding="utf-8")
"""


def shadow_pipeline(root: Path, failing: str) -> None:
    """Replace each stage's command in the dvc.yaml of the project copy at `root` by one writing its outputs
    (`failing` exits 3 once it has written them); deps, params, outs and the order stay the project's."""
    doc = yaml.safe_load((root / "dvc.yaml").read_text(encoding="utf-8"))
    for name, stage in doc["stages"].items():
        written = [next(iter(o)) if isinstance(o, dict) else o for k in ("outs", "metrics") for o in stage.get(k, [])]
        stage["cmd"] = " ".join(["python write_outs.py", *written]) + (" && exit 3" if name == failing else "")
    (root / "dvc.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), encoding="utf-8")
    (root / "write_outs.py").write_text(WRITER, encoding="utf-8")


def _dvc_env() -> dict[str, str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env["DVC_NO_ANALYTICS"] = "1"
    for name in ("DVC_ROOT", "DVC_STAGE"):
        env.pop(name, None)
    return env


@pytest.mark.slow
def test_a_failed_repro_leaves_no_output_to_git_and_its_finished_stages_up_to_date(tmp_path):
    root = tmp_path / "p"
    copy_project(root, {"agents": {AGENT: {"model": "scripted/oracle"}}}, replace=("agents",))
    shadow_pipeline(root, FAILING)
    (root / "dvc.lock").unlink()
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "copy"], cwd=root, check=True)
    env = _dvc_env()

    done = repro([], root, env, timeout=600)
    log = done.stdout + done.stderr
    assert done.returncode != 0 and f"failed to reproduce '{FAILING}@{AGENT}'" in log, log[-3000:]
    ran = re.findall(r"Running stage '([^']+)'", done.stdout)
    assert ran[-1] == f"{FAILING}@{AGENT}", ran
    finished = set(ran[:-1])
    # every stage that finished before the failure is in dvc.lock: DVC writes it stage by stage
    assert set(yaml.safe_load((root / "dvc.lock").read_text(encoding="utf-8"))["stages"]) == finished
    assert {"lawbench_report", "j1_report", f"lawbench_predict@{AGENT}-zero_shot"} <= finished  # reports read runs/

    status = subprocess.run(
        [*GIT, "status", "--porcelain", "--untracked-files=all"], cwd=root, capture_output=True, text=True, check=True
    )
    changed = [line[3:] for line in status.stdout.splitlines()]
    outputs = [p for p in changed if p.startswith(("data/", "reports/html/")) or p.endswith((".parquet", ".gitignore"))]
    assert outputs == [], status.stdout  # no run output for `git add -A`, no .gitignore DVC wrote or dropped
    written = list((root / "data").rglob("*.parquet"))  # the finished stages' and the failed one's
    assert len(written) > 40 and root / "data" / "ucl" / "runs" / AGENT / "turns.parquet" in written

    stale = subprocess.run(
        [Path(sys.executable).parent / "dvc", "status", "--json"], cwd=root, env=env, capture_output=True, text=True
    )
    assert stale.returncode == 0, stale.stderr
    assert sorted(finished & set(json.loads(stale.stdout))) == []  # `dvc status` flags no finished stage

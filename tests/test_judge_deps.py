"""A changed judge or judge prompt reruns only the judge and the stages after it (issue 40, item 3): the run
records and code hashes of the stages that do not judge leave the judge's prompts out, and in a copy of the project
`dvc` finds only the judge stage stale after a judge prompt or the judge kernel changes (flows/dvc_yaml.py)."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from steps.protocol import is_judge_template, template_hashes
from tests.conftest import ROOT
from tests.helpers import copy_project, repro
from tests.test_ignored_outputs import GIT, _dvc_env, shadow_pipeline

AGENT = "a"


def test_a_run_that_calls_no_judge_records_no_judge_prompt():
    assert is_judge_template("judges/templates/rubric.j2")
    assert is_judge_template("ucl/templates/judge/judge_hints.j2")
    assert is_judge_template("j1/eval/templates/judge/stages.j2")
    assert not is_judge_template("ucl/templates/user.j2") and not is_judge_template("j1/envs/ci/templates/judge.j2")
    folders = ("ucl/templates", "judges/templates")
    every = template_hashes(folders)
    without = template_hashes(folders, judge=False)
    assert set(every) - set(without) == {
        "ucl/templates/judge/judge_pairwise.j2",
        "ucl/templates/judge/judge_hints.j2",
        "judges/templates/pointwise.j2",
        "judges/templates/rubric.j2",
        "judges/templates/rubric_flags.j2",
    }
    assert set(without) == {
        f"ucl/templates/{n}" for n in ("assistant.j2", "released_user.j2", "report.md.j2", "user.j2")
    }
    digest = hashlib.sha256((ROOT / "steps/ucl/templates/user.j2").read_bytes()).hexdigest()
    assert without["ucl/templates/user.j2"] == digest


def test_plawbench_answers_do_not_hash_the_judge_prompts(tmp_path):
    import shutil

    from steps.plawbench.prompts import TEMPLATES, templates_version

    copy = tmp_path / "templates"
    shutil.copytree(TEMPLATES, copy)
    answers, judged = templates_version(folder=copy), templates_version(judge=True, folder=copy)
    assert (answers, judged) == (templates_version(), templates_version(judge=True))
    (copy / "judge" / "judge_drafting.j2").write_text("changed", encoding="utf-8")
    assert templates_version(folder=copy) == answers and templates_version(judge=True, folder=copy) != judged
    (copy / "drafting_user.j2").write_text("changed", encoding="utf-8")
    assert templates_version(folder=copy) != answers


def test_j1_dialogue_code_hash_leaves_the_judge_part_out():
    from steps.j1.eval.stages import code_fingerprint

    templates = ROOT / "steps" / "j1" / "eval" / "templates"
    assert sorted(p.name for p in (templates / "judge").iterdir()) == ["checklist.j2", "stages.j2"]
    assert code_fingerprint((templates,)) == code_fingerprint((templates / "report.md.j2",))
    judge_module = ROOT / "steps" / "j1" / "eval" / "court.py"  # imports steps.judges
    assert code_fingerprint((judge_module,)) == code_fingerprint(())
    rules = ROOT / "steps" / "j1" / "eval" / "metrics"  # J1's rule metrics: no judge
    assert code_fingerprint((rules,)) != code_fingerprint(())


# The copy's stages write their outputs; each output's text holds the hash of the judge prompts (templates/judge/)
# when the stage's deps hold them, so that the judge's outputs change with its prompt and the stages after it rerun.
WRITER = """import hashlib, sys
from pathlib import Path

deps = sys.argv[1].split(",")
prompts = sorted(p for d in deps for p in Path(d).rglob("*.j2") if "judge" in p.parts) if deps != [""] else []
digest = hashlib.sha256(b"".join(p.read_bytes() for p in prompts)).hexdigest()
for out in map(Path, sys.argv[2:]):
    written = out if out.suffix else out / "x.md"
    written.parent.mkdir(parents=True, exist_ok=True)
    written.write_text(f"{out} {digest}", encoding="utf-8")
"""


def _stale(root: Path, env: dict[str, str], targets: list[str]) -> set[str]:
    done = subprocess.run(
        [Path(sys.executable).parent / "dvc", "status", "--json", "--with-deps", *targets],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout))


@pytest.mark.slow
def test_a_judge_prompt_change_reruns_the_judge_and_the_report_not_the_dialogues(tmp_path):
    import yaml

    root = tmp_path / "p"
    copy_project(root, {"agents": {AGENT: {"model": "scripted/oracle", "benchmarks": ["ucl"]}}}, replace=("agents",))
    shadow_pipeline(root, failing="-")
    doc = yaml.safe_load((root / "dvc.yaml").read_text(encoding="utf-8"))
    for stage in doc["stages"].values():  # the writer above, given the stage's code deps under steps/
        code = ",".join(d for d in stage.get("deps", []) if d.startswith("steps/"))
        stage["cmd"] = stage["cmd"].replace("python write_outs.py", f"python write_outs.py '{code}'", 1)
    (root / "dvc.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), encoding="utf-8")
    (root / "write_outs.py").write_text(WRITER, encoding="utf-8")
    (root / "dvc.lock").unlink()
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "copy"], cwd=root, check=True)
    env = _dvc_env()
    done = repro(["ucl_report"], root, env, timeout=300)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    ran = set(re.findall(r"Running stage '([^']+)'", done.stdout))
    assert ran == {"ingest", "ucl_reference", f"ucl_simulate@{AGENT}", f"ucl_judge@{AGENT}", "ucl_report"}
    assert _stale(root, env, ["ucl_report"]) == set()

    # a judge prompt: the judge is stale; its new verdicts make the report rerun; the dialogues stay
    prompt = root / "steps" / "ucl" / "templates" / "judge" / "judge_pairwise.j2"
    prompt.write_text(prompt.read_text(encoding="utf-8") + "{# edited #}\n", encoding="utf-8")
    assert _stale(root, env, ["ucl_report"]) == {f"ucl_judge@{AGENT}"}
    done = repro(["ucl_report"], root, env, timeout=300)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert re.findall(r"Running stage '([^']+)'", done.stdout) == [f"ucl_judge@{AGENT}", "ucl_report"]

    # the judge kernel: the same
    kernel = root / "steps" / "judges" / "pairwise.py"
    kernel.write_text(kernel.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    assert _stale(root, env, ["ucl_report"]) == {f"ucl_judge@{AGENT}"}

    # an agent's prompt, by contrast: the dialogues are stale
    user = root / "steps" / "ucl" / "templates" / "user.j2"
    user.write_text(user.read_text(encoding="utf-8") + "{# edited #}\n", encoding="utf-8")
    assert {"ucl_reference", f"ucl_simulate@{AGENT}"} <= _stale(root, env, ["ucl_report"])

"""dvc.yaml is derived from the stage declarations (flows/dvc_yaml.py): it is fresh, its code deps cover what each
stage's body imports (coarse, but for the judge part of its own package, which only the judge stage depends on)."""

from __future__ import annotations

import subprocess
import sys

import yaml

from flows.dvc_yaml import DVC_FILE, closure, code_deps, dvc_yaml
from steps.benchmarks import benchmarks
from steps.code import judge_part, judges, module_file
from steps.pipeline import owner, stages
from tests.conftest import ROOT


def test_the_committed_dvc_yaml_is_what_the_declarations_give():
    assert DVC_FILE.read_text(encoding="utf-8") == dvc_yaml(), "dvc.yaml is stale: run `jurisflow stages write`"


def test_the_check_command_fails_on_a_stale_file(tmp_path, monkeypatch):
    import flows.dvc_yaml as generator

    stale = tmp_path / "dvc.yaml"
    stale.write_text(dvc_yaml().replace("python -m flows.run", "python -m flows.other", 1), encoding="utf-8")
    monkeypatch.setattr(generator, "DVC_FILE", stale)
    try:
        generator.main(["--check"])
    except SystemExit as stop:
        assert "run `jurisflow stages write`" in str(stop)
    else:
        raise AssertionError("a stale dvc.yaml passed the check")
    ok = subprocess.run([sys.executable, "-m", "flows.dvc_yaml", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert ok.returncode == 0 and "is up to date" in ok.stdout


def _covers(deps: set[str], path: str) -> bool:
    """Whether a dep of `deps` is `path` or a folder holding it."""
    return any(path == d or path.startswith(f"{d}/") for d in deps)


def test_every_stage_depends_on_every_module_its_body_imports():
    written = yaml.safe_load(DVC_FILE.read_text(encoding="utf-8"))["stages"]
    assert set(written) == set(stages())
    for name, stage in stages().items():
        deps = set(written[name]["deps"])
        for module in closure(stage.module) - {"steps", "flows"}:  # the namespaces' __init__ files: no code
            file = module_file(module)
            assert file is not None and _covers(deps, file.relative_to(ROOT).as_posix()), (name, module)
            top = module.split(".")
            if top[0] == "steps" and len(top) > 1 and top[1] not in benchmarks() and (ROOT / "steps" / top[1]).is_dir():
                assert f"steps/{top[1]}" in deps, (name, module)  # the kernel's packages: coarse
        assert set(code_deps(stage)) <= deps
        # coarse but for the benchmark packages of a stage that does not judge: no file inside a kernel package
        split = () if judges(stage.module) else tuple(f"steps/{b}/" for b in benchmarks())
        inside = [d for d in deps if d.startswith("steps/") and d.count("/") > 1 and not d.startswith(split)]
        assert not inside, (name, inside)


JUDGED = ("j1", "mile", "ucl", "plawbench")  # the benchmarks with LLM judges
SIMULATING = {  # their stages that call the agent (or the reference) and the environment: never a judge's code
    "j1": ("j1_simulate",),
    "mile": ("mile_simulate",),
    "ucl": ("ucl_reference", "ucl_simulate"),
    "plawbench": ("plawbench_predict",),
}


def _judge_templates(benchmark: str) -> list[str]:
    found = [p for p in (ROOT / "steps" / benchmark).rglob("*.j2") if "judge" in p.relative_to(ROOT).parts[:-1]]
    return sorted(p.relative_to(ROOT).as_posix() for p in found)


def test_a_judge_change_reruns_only_the_judge_stages():
    """Editing steps/judges or a benchmark's judge prompts (templates/judge/) leaves the dialogues and answers
    alone; the judge stage depends on all of them."""
    written = yaml.safe_load(DVC_FILE.read_text(encoding="utf-8"))["stages"]
    kernel = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "steps" / "judges").rglob("*.py"))
    for benchmark in JUDGED:
        prompts = _judge_templates(benchmark)
        assert prompts, f"steps/{benchmark} keeps no judge prompt under templates/judge/"
        own = [n for n in stages() if owner(n) == benchmark]
        assert [n for n in own if judges(stages()[n].module)] == [f"{benchmark}_judge"]
        judge_deps = set(written[f"{benchmark}_judge"]["deps"])
        assert "steps/judges" in judge_deps
        assert all(_covers(judge_deps, t) for t in prompts), benchmark
        for name in SIMULATING[benchmark]:
            assert stages()[name].calls_models, name
        for name in own:
            if name == f"{benchmark}_judge":
                continue
            deps = set(written[name]["deps"])
            assert not [k for k in kernel if _covers(deps, k)], name
            assert not [t for t in prompts if _covers(deps, t)], name


def test_a_stage_that_does_not_judge_depends_on_all_the_rest_of_its_package():
    """The judge part left out, every other file of the stage's own package (its modules, the prompts of its roles,
    its SQL and data) is still a dep: nothing it uses, even by a name built at run time, goes unseen."""
    written = yaml.safe_load(DVC_FILE.read_text(encoding="utf-8"))["stages"]
    for name, stage in stages().items():
        deps = set(written[name]["deps"])
        packages = [b for b in benchmarks() if b == owner(name) or f"steps/{b}" in stage.code]
        for who in [] if judges(stage.module) else packages:
            left_out = judge_part(who)
            files = [p for p in (ROOT / "steps" / who).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
            for path in files:
                if not any(path.is_relative_to(j) for j in left_out):
                    assert _covers(deps, path.relative_to(ROOT).as_posix()), (name, path)
    simulate = set(written["ucl_simulate"]["deps"])
    assert {"steps/ucl/templates/user.j2", "steps/ucl/templates/assistant.j2", "steps/ucl/scripted.py"} <= simulate
    assert "steps/ucl/pairs.py" not in simulate and "steps/ucl/judge_stages.py" not in simulate


def test_the_code_a_registration_names_for_the_shared_stages_is_outside_the_judge_part():
    """ingest, the data card and the HTML report run code their bodies do not import, named by the registrations
    (loaders, charts, transcript readers, item scores, paper names); they leave the judge part out of their deps, so
    none of it may import steps.judges. Only the judge stages, the judge audit (`human_study`) and `jurisflow show`
    may."""
    judging = {"human_study", "show"}
    for name, b in benchmarks().items():
        named = {"sources": f"steps.{name}.sources", "charts": b.page.charts}
        named |= {f: getattr(b, f) for f in ("paper_names", "dialogue_reader", "smoke", "run_prompts", "item_scores")}
        named |= {f"headline {i}": h.paper for i, h in enumerate(b.headlines)}
        for field, target in named.items():
            if target is not None and field not in judging:
                assert not judges(target.partition(":")[0]), (name, field, target)

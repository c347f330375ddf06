"""dvc.yaml is derived from the stage declarations (flows/dvc_yaml.py): it is fresh, and its code deps are coarse and
cover what each stage's body imports."""

from __future__ import annotations

import subprocess
import sys

import yaml

from flows.dvc_yaml import DVC_FILE, closure, code_deps, dvc_yaml
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


def test_every_stage_depends_on_its_own_package_and_every_package_its_body_imports():
    written = yaml.safe_load(DVC_FILE.read_text(encoding="utf-8"))["stages"]
    assert set(written) == set(stages())
    for name, stage in stages().items():
        deps = set(written[name]["deps"])
        who = owner(name)
        if who is not None:
            assert f"steps/{who}" in deps, name
        for module in closure(stage.module):
            top = module.split(".")
            if top[0] == "steps" and len(top) > 1 and (ROOT / "steps" / top[1]).is_dir():
                assert f"steps/{top[1]}" in deps, (name, module)
        assert set(code_deps(stage)) <= deps
        # coarse: no file inside a steps package is listed on its own
        assert not [d for d in deps if d.startswith("steps/") and d.count("/") > 1 and not d.startswith("steps/data")]

"""dvc.yaml, written from the stage declarations (steps/stages.py, steps/pipeline.py):

    jurisflow stages write      (python -m flows.dvc_yaml)          rewrite dvc.yaml
    jurisflow stages check      (python -m flows.dvc_yaml --check)  exit 1 when dvc.yaml is not what it would write

Why generated rather than hand-written: a stage's body is code (its flow, `jurisflow estimate` and the CLI all
need it), so the code is the one declaration and dvc.yaml is derived from it, checked in so that `dvc` works
without jurisflow and reviewed like code. A stage's code deps are coarse: the packages its body imports, found by
reading the imports (each under steps/ counted as its top-level package, `steps/ucl`, `steps/llm` …; each under
flows/ as its file, flows/kit as a whole), plus what its declaration adds (`code`), then the data it reads.

Judge changes are cheap: a benchmark's judge part is its modules that import steps.judges (directly or not) and its
`templates/judge/` folders (steps/code.py). A stage whose body does not import steps.judges depends on each benchmark
package it depends on minus that part (as the fewest files and folders covering the rest); a judging one on all of it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from steps.benchmarks import benchmarks
from steps.code import ROOT, closure, judge_part, judges
from steps.code import module_file as _module_file
from steps.pipeline import owner, stages
from steps.stages import AGENT, SETTING, Stage

DVC_FILE = ROOT / "dvc.yaml"
RUNNER = ("flows.run", "flows.kit.context")  # every stage runs through these

HEADER = """\
# The pipeline, written by `jurisflow stages write` from the stage declarations: do not edit by hand.
# A stage is declared in its benchmark's registration (steps/<benchmark>/benchmark.py, `stages`) or among the
# shared stages (steps/pipeline.py); its body is the "module:function" its `desc` names. Per-agent stages iterate
# `runs.<benchmark>` in params.yaml: the agents whose `benchmarks` include it.
"""


def _coarse(module: str) -> str:
    """The dependency a module counts as: its top-level package under steps/ (or the file of a top-level module),
    its file under flows/ (flows/kit as a whole)."""
    parts = module.split(".")
    file = _module_file(module)
    assert file is not None
    if parts[0] == "steps" and len(parts) > 1:
        top = ROOT / "steps" / parts[1]
        return f"steps/{parts[1]}" if top.is_dir() else f"steps/{parts[1]}.py"
    if parts[:2] == ["flows", "kit"]:
        return "flows/kit"
    return file.relative_to(ROOT).as_posix()


def _cover(path: Path, left_out: frozenset[Path]) -> list[str]:
    """The fewest files and folders that hold everything under `path` but the `left_out` paths."""
    if path in left_out:
        return []
    if path.is_file() or not any(p.is_relative_to(path) for p in left_out):
        return [path.relative_to(ROOT).as_posix()]
    children = (c for c in sorted(path.iterdir()) if c.name != "__pycache__" and not c.name.startswith("."))
    return [dep for child in children for dep in _cover(child, left_out)]


def code_deps(stage: Stage) -> list[str]:
    """The code a stage depends on (see the module docstring), sorted."""
    modules = set().union(*(closure(m) for m in (stage.module, *RUNNER)))
    deps = {_coarse(m) for m in modules if m not in ("steps", "flows")} | set(stage.code)
    if not judges(stage.module):
        for name in (b for b in benchmarks() if f"steps/{b}" in deps):
            deps = (deps - {f"steps/{name}"}) | set(_cover(ROOT / "steps" / name, judge_part(name)))
    return sorted(deps)


def _dvc_path(path: str) -> str:
    return path.replace(AGENT, "${item.agent}").replace(SETTING, "${item.setting}")


def _list(key: str, items: Iterable[str], *, uncached: Iterable[str] = ()) -> list[str]:
    """`key:` and its items (`uncached`: after them, each with `cache: false`); nothing when there are none."""
    plain, kept = list(items), list(uncached)
    if not plain and not kept:
        return []
    return [
        f"    {key}:",
        *(f"      - {item}" for item in plain),
        *(line for item in kept for line in (f"      - {item}:", "          cache: false")),
    ]


def protocol_params(stage: Stage, benchmark: str | None) -> list[str]:
    """The stage's params keys, with the keys that decide its protocol (steps/protocol.py): a stage of a benchmark
    that depends on a shared role (`environment`, `judge`) or one of the benchmark's own (`ucl.reference`) also
    depends on the benchmark's own entry for that role, and one that depends on any of these or on a key of its
    benchmark's section also depends on the benchmark's `protocol` (its run records and labels)."""
    from steps.params import SECTIONS

    keys = list(stage.params)
    if benchmark is None or benchmark not in SECTIONS:
        return keys
    roles = SECTIONS[benchmark].ROLES
    used = [r for r in roles if r in keys or f"{benchmark}.{r}" in keys]
    if used or any(k.startswith(f"{benchmark}.") for k in keys):
        extra = [f"{benchmark}.protocol", *(f"{benchmark}.{r}" for r in used)]
        keys += [k for k in extra if k not in keys]
    return keys


def stage_text(stage: Stage) -> str:
    who = owner(stage.name)
    where = f"steps/{who}/benchmark.py" if who else "steps/pipeline.py"
    lines = [f"  {stage.name}:", f"    desc: '{stage.help.replace(chr(39), chr(39) * 2)} [{where} → {stage.body}]'"]
    if stage.per_agent:
        lines += ["    matrix:", f"      agent: ${{runs.{stage.agents}}}"]
        if stage.settings:
            lines.append(f"      setting: [{', '.join(stage.settings)}]")
    args = " ".join(f"${{item.{a}}}" for a in stage.arguments())
    lines.append(f"    cmd: python -m flows.run {stage.name}{' ' + args if args else ''}")
    lines += _list("deps", [*code_deps(stage), *map(_dvc_path, stage.reads)])
    lines += _list("params", map(_dvc_path, protocol_params(stage, who)))
    lines += _list("outs", map(_dvc_path, stage.writes), uncached=map(_dvc_path, stage.reports))
    lines += _list("metrics", (), uncached=map(_dvc_path, stage.metrics))
    return "\n".join(lines)


def plots_text() -> str:
    lines = ["plots:"]
    for b in benchmarks().values():
        for p in b.plots:
            lines += [
                f"  - reports/plots/{p.name}.csv:",
                "      template: bars_by_agent",
                f"      x: {p.value_name}",
                f"      y: {p.label_name}",
                f"      title: {p.title or p.name}",
            ]
    return "\n".join(lines)


def dvc_yaml() -> str:
    """The text of dvc.yaml."""
    body = "\n\n".join(stage_text(s) for s in stages().values())
    return f"{HEADER}stages:\n{body}\n\n{plots_text()}\n"


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    text = dvc_yaml()
    if "--check" in args:
        if DVC_FILE.read_text(encoding="utf-8") != text:
            raise SystemExit(f"{DVC_FILE.name} is not what the stage declarations give: run `jurisflow stages write`")
        print(f"{DVC_FILE.name} is up to date ({len(stages())} stages)")
        return
    DVC_FILE.write_text(text, encoding="utf-8")
    print(f"{DVC_FILE.name} written ({len(stages())} stages)")


if __name__ == "__main__":
    main()

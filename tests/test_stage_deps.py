"""Every stage's `deps` in dvc.yaml cover the code it runs, so that no code change can leave an output stale.

For each stage, the import closure of its `python -m flows.<x>` command is derived from the source (ast: every
`import` and `from … import`, also those inside functions; the package `__init__.py` files that importing a
module runs; modules imported by a name built at run time, an f-string such as `f"steps.j1.envs.{folder}.env"`
read as the pattern `steps.j1.envs.*.env`; a string naming an object as "module:attribute", as a benchmark's
registration names its paper's model list), together with the data files that code reads by name (SQL files,
Jinja templates, YAML, text and CSV tables under steps/ and flows/, matched by the string literals of the
closure's modules: `"j1_cells"`, `"pointwise.j2"`, and f-strings such as `f"data_{name}"` as patterns). The
test fails, naming the stage and the
missing files, when the stage's deps do not cover that closure. The J1 simulation's code fingerprint (part of its
run id and journal) must likewise cover every file of its closure under steps/. Flows never import another
stage's flow module: what they share lives in the flow kit (flows/kit/) or another non-stage module.

`python -m tests.test_stage_deps` rewrites every stage's code deps in dvc.yaml from these closures (`write_deps`).
"""

from __future__ import annotations

import ast
import fnmatch
import re
from functools import cache
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("flows", "steps")  # the project's own top-level packages
DATA_SUFFIXES = (".sql", ".j2", ".yaml", ".txt", ".csv", ".json")
NOT_DEPS = {"params.yaml"}  # DVC tracks it by the stages' `params`, not as a file dependency


def module_file(name: str) -> Path | None:
    """The file of a project module (`steps.j1.extract` → steps/j1/extract/__init__.py), or None."""
    if name.split(".")[0] not in PACKAGES:
        return None
    base = ROOT.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _package_of(path: Path) -> list[str]:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return parts[:-1] if path.name == "__init__.py" else parts


@cache
def imports_of(path: Path) -> tuple[tuple[str, tuple[str, ...] | None], ...]:
    """The imports of a module (also those inside functions): (module, None) for `import module`, (module,
    names) for `from module import names`; relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    here = _package_of(path) if path.name == "__init__.py" else _package_of(path)[:-1]
    out: list[tuple[str, tuple[str, ...] | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = here[: len(here) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            out.append((base, tuple(alias.name for alias in node.names)))
    return tuple(out)


MODULE_NAME = re.compile(r"^(flows|steps)(\.[\w*]+)+$")
NAMED_OBJECT = re.compile(
    r"^((flows|steps)(\.\w+)+):\w+$"
)  # "steps.ucl.paper:paper_names", as a registration names code


@cache
def _all_modules() -> tuple[str, ...]:
    """Every module of the project's packages, by dotted name."""
    names = []
    for package in PACKAGES:
        for f in (ROOT / package).rglob("*.py"):
            parts = f.relative_to(ROOT).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return tuple(sorted(names))


@cache
def named_modules(path: Path) -> tuple[str, ...]:
    """The modules a module imports by a name it builds or writes down (importlib): its f-strings that read as a
    module name (`f"steps.j1.envs.{folder}.env"`) are patterns matched against every project module, and a string
    naming an object as "module:attribute" (a registration's `"steps.ucl.paper:paper_names"`) names its module."""
    literals = _literals(path)
    patterns = [s for s in literals if "*" in s and MODULE_NAME.match(s)]
    named = {m.group(1) for s in literals if (m := NAMED_OBJECT.match(s))}
    return tuple(m for m in _all_modules() if m in named or any(fnmatch.fnmatchcase(m, p) for p in patterns))


def imported_modules(path: Path) -> set[str]:
    """Every module name an import statement in `path` may load (for `from a import b`: a, and a.b)."""
    names = set()
    for module, imported in imports_of(path):
        names.add(module)
        names |= {f"{module}.{n}" for n in imported or ()}
    return names


def with_parents(name: str) -> list[str]:
    """`a.b.c` → a, a.b: importing a module first runs every enclosing package's __init__."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


@cache
def python_closure(module: str) -> frozenset[Path]:
    """The project's Python files that `python -m <module>` runs and uses.

    A module's imports are followed in full. A package `__init__.py` that is only passed through (the parent of
    a module) or asked for some names (`from steps.schemas import Turns`) is itself in the closure, but of its
    own imports only those that define the names asked for are followed; a name it defines itself, or
    `import package`, follows them all."""
    seen: set[Path] = set()
    full: set[Path] = set()
    asked: dict[Path, set[str]] = {}
    todo: list[tuple[str, tuple[str, ...] | None]] = [(module, None)]
    while todo:
        name, names = todo.pop()
        todo += [(parent, ()) for parent in with_parents(name)]
        path = module_file(name)
        if path is None:
            continue
        seen.add(path)
        if path in full:
            continue
        if path.name != "__init__.py" or names is None:
            full.add(path)
            todo += [(named, None) for named in named_modules(path)]
            for sub, subnames in imports_of(path):
                todo.append((sub, subnames))
                todo += [(f"{sub}.{n}", None) for n in subnames or () if module_file(f"{sub}.{n}")]
            continue
        new = set(names) - asked.setdefault(path, set())
        asked[path] |= new
        for wanted in new:
            if module_file(f"{name}.{wanted}"):
                todo.append((f"{name}.{wanted}", None))
                continue
            source = [(sub, subnames) for sub, subnames in imports_of(path) if wanted in (subnames or ())]
            if not source:  # defined in the __init__ itself
                todo.append((name, None))
            todo += [(sub, (wanted,)) for sub, _ in source]
    return frozenset(seen)


@cache
def _literals(path: Path) -> frozenset[str]:
    """The string literals of a module, and its f-strings as glob patterns (`f"data_{x}"` → `data_*`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 200:
            out.add(node.value)
        elif isinstance(node, ast.JoinedStr):
            out.add("".join(v.value if isinstance(v, ast.Constant) else "*" for v in node.values))
    return frozenset(out)


def _specific(pattern: str) -> bool:
    """A pattern names files, not every file of a kind (`*.sql`, `*`): it has a literal part beyond a suffix."""
    return len(re.sub(r"\*|\.(sql|j2|yaml|txt|csv|json)$", "", pattern).strip("./_")) >= 3


def _package_dir(path: Path) -> Path:
    """The folder of the package a file belongs to (its nearest folder with an __init__.py)."""
    folder = path.parent
    while not (folder / "__init__.py").is_file() and folder != ROOT:
        folder = folder.parent
    return folder


@cache
def _all_data_files() -> tuple[Path, ...]:
    return tuple(
        f for package in PACKAGES for f in (ROOT / package).rglob("*") if f.is_file() and f.suffix in DATA_SUFFIXES
    )


def data_files(code: frozenset[Path]) -> set[Path]:
    """The data files under steps/ and flows/ that the closure's modules name, as string literals or f-string
    patterns: a SQL file by its stem (`run_query(con, "j1_cells")`, `f"data_{name}"`), any other file by its
    name or `folder/name`; a name that several packages use (`lawyer.j2`) counts only in its own package."""
    names = [f.name for f in _all_data_files()]
    by_package: dict[Path, set[str]] = {}
    for path in code:
        by_package.setdefault(path.parent, set()).update(s for s in _literals(path) if _specific(s))
    everywhere = set().union(*by_package.values())
    found = set()
    for f in _all_data_files():
        if f.suffix == ".sql":
            keys, patterns = [f.stem, f.name], everywhere
        else:
            keys = [f.name, f.relative_to(f.parent.parent).as_posix()]
            patterns = everywhere if names.count(f.name) == 1 else by_package.get(_package_dir(f), set())
        if any(fnmatch.fnmatchcase(k, pat) for k in keys for pat in patterns):
            found.add(f)
    return found


def repository_files(module: str) -> set[Path]:
    """Files outside the packages that the flow module itself names by path (a test fixture, sources.yaml);
    outputs (data/, reports/) and params.yaml are not dependencies."""
    path = module_file(module)
    named = {ROOT / s for s in _literals(path) if s.endswith(DATA_SUFFIXES) and "*" not in s}
    return {
        f
        for f in named
        if f.is_file() and f.relative_to(ROOT).parts[0] not in ("data", "reports") and f.name not in NOT_DEPS
    }


@cache
def closure(module: str) -> frozenset[str]:
    """Every project file (relative path) that running `python -m <module>` may read as code or by name."""
    code = python_closure(module)
    return frozenset(p.relative_to(ROOT).as_posix() for p in code | data_files(code) | repository_files(module))


@cache
def stages() -> dict[str, dict]:
    return yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]


def flow_module(cmd: str) -> str:
    match = re.match(r"python -m (flows\.\w+)", cmd)
    assert match, f"a stage's cmd runs a flow module: {cmd!r}"
    return match.group(1)


def uncovered(files: set[str], deps: list[str]) -> list[str]:
    """The files no dep names, by path or by a folder above them."""
    roots = [d.rstrip("/") for d in deps]
    return sorted(f for f in files if not any(f == d or f.startswith(d + "/") for d in roots))


STAGE_FLOWS = {name: flow_module(stage["cmd"]) for name, stage in stages().items()}


@pytest.mark.parametrize("stage", sorted(STAGE_FLOWS))
def test_the_deps_of_a_stage_cover_every_file_its_flow_imports_or_reads(stage):
    deps = [d if isinstance(d, str) else next(iter(d)) for d in stages()[stage].get("deps", [])]
    missing = uncovered(closure(STAGE_FLOWS[stage]), deps)
    assert not missing, (
        f"dvc.yaml stage '{stage}' ({STAGE_FLOWS[stage]}) does not depend on: {', '.join(missing)}; "
        "`python -m tests.test_stage_deps` rewrites the deps"
    )


def test_the_closure_finds_imports_packages_and_data_files():
    """The derivation itself, on modules whose needs are known (so a broken derivation cannot pass vacuously)."""
    aggregate = closure("flows.j1_report")
    assert {
        "flows/__init__.py",
        "flows/j1_report.py",
        "steps/__init__.py",
        "steps/j1/eval/__init__.py",
        "steps/j1/eval/tables.py",
        "steps/sql/__init__.py",
        "steps/j1/eval/sql/j1_cells.sql",
        "steps/j1/eval/sql/j1_failures.sql",
    } <= aggregate
    assert "steps/mile/sql/data_mile.sql" not in aggregate  # SQL files are matched by name, not taken wholesale
    data_report = closure("flows.data_report")
    assert {"steps/ucl/sql/data_ucl.sql", "steps/sql/data_model_usage.sql"} <= data_report  # f"data_{name}"
    judge = closure("flows.j1_judge")
    assert {"steps/j1/eval/courts.yaml", "steps/judges/templates/pointwise.j2"} <= judge
    # imported by a built name only (f"steps.j1.envs.{folder}.env", f"…{folder}.scripted") and what they import
    simulate = closure("flows.j1_simulate")
    assert {"steps/j1/envs/kq/env.py", "steps/j1/envs/cr/env.py", "steps/j1/envs/cd/scripted.py"} <= simulate
    assert "steps/j1/envs/cr/instances.py" in simulate
    # the benchmarks' registrations (f"steps.{folder}.benchmark") and the code they name ("module:function"); the
    # interim tables' modules (f"steps.{folder}.sources"), found apart, so that ingest needs no registration
    benchmarks = {f"steps/{b}/benchmark.py" for b in ("lawbench", "j1", "mile", "ucl", "plawbench")}
    sources = {f"steps/{b}/sources.py" for b in ("lawbench", "j1", "mile", "ucl", "plawbench")}
    assert benchmarks | sources | {"steps/ucl/paper.py", "steps/j1/eval/paper.py"} <= data_report
    ingest = closure("flows.ingest")
    assert sources <= ingest and not benchmarks & ingest
    ucl_report = closure("flows.ucl_report")  # its own registration only
    assert benchmarks & ucl_report == {"steps/ucl/benchmark.py"} and "steps/mile/sources.py" not in ucl_report
    assert "tests/j1/extract/fixtures/verdicts.json" in closure("flows.j1_extract")
    assert uncovered({"steps/j1/extract/sections.py", "steps/llm/door.py"}, ["steps/llm"]) == [
        "steps/j1/extract/sections.py"
    ]


def test_the_simulation_fingerprint_covers_its_code():
    """The J1 run id hashes the code that decides a dialogue: every file of the stage's closure under steps/."""
    from flows.j1_simulate import CODE

    roots = [p.relative_to(ROOT).as_posix() for p in CODE]
    steps = {f for f in closure("flows.j1_simulate") if f.startswith("steps/")}
    missing = uncovered(steps, roots)
    assert not missing, f"flows/j1_simulate.py CODE (the run id's code fingerprint) leaves out: {', '.join(missing)}"


def test_no_stage_flow_imports_another_stage_flow():
    stage_modules = set(STAGE_FLOWS.values())
    offences = []
    for module in sorted(stage_modules):
        imported = imported_modules(module_file(module))
        offences += [f"{module} imports {other}" for other in sorted(imported & stage_modules) if other != module]
    assert not offences, "; ".join(offences)


def covering_deps(files: set[str]) -> list[str]:
    """The shortest list of paths that covers `files`: a folder when every file in it is among them."""
    out: set[str] = set(files)
    changed = True
    while changed:
        changed = False
        for folder in sorted({str(Path(f).parent) for f in out if "/" in f}, key=len, reverse=True):
            inside = {
                p.relative_to(ROOT).as_posix()
                for p in (ROOT / folder).rglob("*")
                if p.is_file() and "__pycache__" not in p.parts
            }
            if inside and all(any(f == o or f.startswith(o + "/") for o in out) for f in inside):
                new = {o for o in out if not (o == folder or o.startswith(folder + "/"))} | {folder}
                if new != out:
                    out, changed = new, True
    return sorted(out)


def package_deps(files: set[str], most: float = 0.5) -> list[str]:
    """`files` as a short deps list: a package folder under flows/ or steps/ (never flows/ or steps/ themselves)
    stands for its files when the stage uses more than `most` of them (the rest are then deps too: a stage may
    rerun for a file it does not use, never miss one it does); flows/ first, then steps/, then the rest."""
    out = set(files)
    folders = sorted(
        {
            str(parent)
            for f in files
            for parent in Path(f).parents
            if len(parent.parts) >= 2 and parent.parts[0] in PACKAGES
        },
        key=lambda d: -len(Path(d).parts),
    )
    for folder in folders:
        inside = {
            p.relative_to(ROOT).as_posix()
            for p in (ROOT / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        }
        covered = {f for f in inside if any(f == o or f.startswith(o + "/") for o in out)}
        if inside and len(covered) > most * len(inside):
            out = {o for o in out if not (o == folder or o.startswith(folder + "/"))} | {folder}
    order = {"flows": 0, "steps": 1}
    return sorted(out, key=lambda d: (order.get(d.split("/")[0], 2), d))


def write_deps(dvc_file: Path = ROOT / "dvc.yaml") -> list[str]:
    """Rewrite every stage's code deps in dvc.yaml from its import closure (`package_deps`); the other deps (the
    data and reports it reads) are kept, after them. Returns the stages whose deps changed."""
    lines = dvc_file.read_text(encoding="utf-8").splitlines()
    out, changed, stage, i = [], [], None, 0
    while i < len(lines):
        line = lines[i]
        if re.match(r"^  (\w+):$", line):
            stage = line.strip()[:-1]
        if line == "    deps:" and stage in STAGE_FLOWS:
            j = i + 1
            while j < len(lines) and lines[j].startswith("      - "):
                j += 1
            old = [entry[len("      - ") :] for entry in lines[i + 1 : j]]
            kept = [d for d in old if d.split("/")[0] in ("data", "reports")]
            new = package_deps(set(closure(STAGE_FLOWS[stage]))) + kept
            changed += [stage] if new != old else []
            out += [line, *(f"      - {d}" for d in new)]
            i = j
            continue
        out.append(line)
        i += 1
    dvc_file.write_text("\n".join(out) + "\n", encoding="utf-8")
    return changed


if __name__ == "__main__":  # python -m tests.test_stage_deps: rewrite dvc.yaml's code deps from the closures
    print("deps rewritten:", ", ".join(write_deps()) or "none")


def test_the_deps_in_dvc_yaml_are_the_generated_ones(tmp_path):
    """dvc.yaml's code deps are exactly what `write_deps` makes of the closures (a package folder where a stage
    uses most of it), so the file stays short and never lists a file a stage no longer uses."""
    copy = tmp_path / "dvc.yaml"
    copy.write_text((ROOT / "dvc.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    changed = write_deps(copy)
    assert changed == [], f"`python -m tests.test_stage_deps` rewrites the deps of: {', '.join(changed)}"


def test_a_package_stands_for_its_files_when_a_stage_uses_most_of_them():
    llm = {p.relative_to(ROOT).as_posix() for p in (ROOT / "steps/llm").glob("*.py")}
    assert package_deps(llm | {"flows/kit/stage.py"}) == ["flows/kit/stage.py", "steps/llm"]
    one = {"steps/llm/config.py", "steps/__init__.py"}
    assert package_deps(one) == ["steps/__init__.py", "steps/llm/config.py"]  # never steps/ itself

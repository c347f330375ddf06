"""The layers of the code (docs/architecture.md, "Imports point down"): the kernel (steps/ outside the benchmark
packages) imports no benchmark, no benchmark imports another, no step imports a flow, and no shared module (the
kernel, flows/) names a benchmark in its code: everything it needs of one comes from the registrations. Docstrings
and comments may name one as an example."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from steps.benchmarks import benchmark_folders
from tests.conftest import ROOT

BENCHMARKS = tuple(benchmark_folders())
NAMED = re.compile(r"(?<![a-z0-9])(" + "|".join(BENCHMARKS) + r")(?![a-z0-9])", re.IGNORECASE)


def _module(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _owner(module: str) -> str | None:
    """The benchmark whose package holds `module` (None: the kernel or flows)."""
    parts = module.split(".")
    return parts[1] if parts[0] == "steps" and len(parts) > 1 and parts[1] in BENCHMARKS else None


def _files(root: Path = ROOT) -> list[Path]:
    return sorted([*(root / "steps").rglob("*.py"), *(root / "flows").rglob("*.py")])


def imports(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, module) of every import in the file, anywhere in it, relative imports resolved."""
    module = _module(path, root)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                kept = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*kept, base] if base else kept)
            found.append((node.lineno, base))
    return found


def edges(root: Path = ROOT) -> list[str]:
    """Every import that does not point down: kernel → benchmark, benchmark → other benchmark, steps → flows."""
    bad = []
    for path in _files(root):
        module, where = _module(path, root), path.relative_to(root).as_posix()
        for line, target in imports(path, root):
            to = _owner(target)
            if to is not None and to != _owner(module):
                bad.append(f"{where}:{line} imports {target}")
            if module.startswith("steps") and target.split(".")[0] == "flows":
                bad.append(f"{where}:{line} imports {target} (a step imports a flow)")
    return bad


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, kinds)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
        and isinstance(node.body[0].value.value, str)
    }


def names_in_code(path: Path, root: Path = ROOT) -> list[str]:
    """Where the file's code (names, imports, string literals other than docstrings) names a benchmark."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        text = None
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            text = node.value
        elif isinstance(node, ast.Name):
            text = node.id
        elif isinstance(node, ast.Attribute):
            text = node.attr
        elif isinstance(node, ast.Import):
            text = " ".join(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            text = node.module or ""
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            text = node.name
        if text and NAMED.search(text.replace("_", " ")):
            found.append(f"{path.relative_to(root).as_posix()}:{node.lineno}: {text[:60]!r}")
    return found


def test_the_checks_see_what_they_look_for(tmp_path):
    (tmp_path / "steps" / "ucl").mkdir(parents=True)
    (tmp_path / "flows").mkdir()
    (tmp_path / "steps" / "ucl" / "stages.py").write_text("from steps.j1.params import J1Params\n")
    (tmp_path / "steps" / "kit.py").write_text("from flows.run import run\n")
    probe = tmp_path / "flows" / "probe.py"
    probe.write_text('"""Names ucl here: allowed."""\nfrom ..steps.ucl import params\nX = "j1_simulate"\n')
    assert edges(tmp_path) == [
        "flows/probe.py:2 imports steps.ucl",
        "steps/kit.py:1 imports flows.run (a step imports a flow)",
        "steps/ucl/stages.py:1 imports steps.j1.params",
    ]
    assert sorted(hit.split(": ")[0] for hit in names_in_code(probe, tmp_path)) == [
        "flows/probe.py:2",
        "flows/probe.py:3",
    ]


def test_imports_point_down():
    assert BENCHMARKS == ("j1", "lawbench", "mile", "plawbench", "ucl")
    assert edges() == []


def test_no_shared_module_names_a_benchmark():
    shared = [p for p in _files() if _owner(_module(p)) is None]
    assert len(shared) > 100
    assert [hit for p in shared for hit in names_in_code(p)] == []

"""The project's own modules (steps.*, flows.*) and what each imports, read from the source (no import runs): what
dvc.yaml's code deps are derived from (flows/dvc_yaml.py), and a benchmark's judge part, which the stages that do
not judge leave out of their deps and of the code hashes in their run ids (a changed judge reruns only the judge and
the stages after it)."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
JUDGE_KERNEL = "steps.judges"
JUDGE_TEMPLATES = "judge"  # a benchmark's judge prompts: steps/<benchmark>/**/templates/judge/


def module_file(module: str) -> Path | None:
    path = ROOT / Path(*module.split("."))
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    return None


@cache
def imports(module: str) -> frozenset[str]:
    """The project modules (steps.*, flows.*) that `module` imports anywhere in its file, and their parent packages."""
    file = module_file(module)
    if file is None:
        return frozenset()
    found: set[str] = set()
    package = module if file.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            names = [base, *(f"{base}.{a.name}" for a in node.names)]
        for name in names:
            if name.split(".")[0] in ("steps", "flows") and module_file(name) is not None:
                parts = name.split(".")
                found.update(".".join(parts[: i + 1]) for i in range(len(parts)))
    return frozenset(found)


@cache
def closure(module: str) -> frozenset[str]:
    """Every project module `module` imports, directly or not (itself included)."""
    seen, todo = {module}, [module]
    while todo:
        for name in imports(todo.pop()) - seen:
            seen.add(name)
            todo.append(name)
    return frozenset(m for m in seen if module_file(m) is not None)


def judges(module: str) -> bool:
    """Whether `module` imports the judge kernel (steps.judges), directly or not."""
    return any(m == JUDGE_KERNEL or m.startswith(f"{JUDGE_KERNEL}.") for m in closure(module))


def _module_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def judge_part(package: str) -> frozenset[Path]:
    """The judge part of the benchmark package steps/<package>: its modules that import steps.judges, directly or
    not, and its `templates/judge/` folders (the judge prompts, which Jinja loads at run time)."""
    root = ROOT / "steps" / package
    modules = {p for p in root.rglob("*.py") if "__pycache__" not in p.parts and judges(_module_of(p))}
    folders = {p for p in root.rglob(JUDGE_TEMPLATES) if p.is_dir() and p.parent.name == "templates"}
    return frozenset(modules | folders)

"""Paths built from configuration (agent names, model names, settings) stay inside their parent folder."""

from __future__ import annotations

from pathlib import Path

from steps.llm.config import check_safe_name


def safe_child(parent: Path, *names: str) -> Path:
    """`parent / name / ...` where every name is one safe path component and the result, symlinks resolved,
    is inside `parent`; anything else raises a one-line ValueError naming the parent and the name."""
    child = parent
    for name in names:
        try:
            check_safe_name(name)
        except ValueError as err:
            raise ValueError(f"{parent}: refusing a path from configuration: {err}") from None
        child = child / name
    if not child.resolve().is_relative_to(parent.resolve()) or child.resolve() == parent.resolve():
        raise ValueError(f"{parent}: refusing {child}: it resolves to {child.resolve()}, outside {parent}")
    return child

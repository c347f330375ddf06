"""The interim tables of stage `ingest`, found on disk: `TABLES` of every `steps/<benchmark>/sources.py`.

Each benchmark keeps its loaders and source schemas in its own package; `ingest` builds every table declared there
and the data card describes them. Apart from the registrations (steps/benchmarks.py), so that `ingest` depends on
the sources only.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from functools import cache

import steps
from steps.registry import SourceTable


def sources_module(folder: str) -> str:
    return f"steps.{folder}.sources"


@cache
def source_tables() -> dict[str, tuple[SourceTable, ...]]:
    """Benchmark → its interim tables in the order it declares them (benchmarks by name)."""
    out: dict[str, tuple[SourceTable, ...]] = {}
    for info in sorted(pkgutil.iter_modules(steps.__path__), key=lambda i: i.name):
        if info.ispkg and importlib.util.find_spec(sources_module(info.name)) is not None:
            tables = tuple(importlib.import_module(sources_module(info.name)).TABLES)
            if not all(isinstance(t, SourceTable) for t in tables):
                raise ValueError(f"steps/{info.name}/sources.py: TABLES must be a tuple of SourceTable")
            out[info.name] = tables
    return out


def interim_tables() -> dict[str, SourceTable]:
    """Every interim table by name (one per sources.yaml dataset); a name declared twice is an error."""
    found: dict[str, SourceTable] = {}
    for bench, tables in source_tables().items():
        for t in tables:
            if t.name in found:
                raise ValueError(f"steps/{bench}/sources.py: interim table {t.name!r} is declared twice")
            found[t.name] = t
    return found

"""Small shared types for the source loaders."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from steps.sources.pinned import SourceFile


@dataclass(frozen=True)
class Fetched:
    """A pinned source file and the local path of its verified copy."""

    source: SourceFile
    local: Path

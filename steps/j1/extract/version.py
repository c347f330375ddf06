"""The parser's version: a digest of its rule modules, so every change of a rule changes the version stamped
on each case (and the run id) without anyone having to remember to bump a number."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

_HERE = Path(__file__).parent
PARSER_MODULES = (
    "civil",
    "civil_sections",
    "costs",
    "criminal",
    "dates",
    "frame",
    "header",
    "laws",
    "model",
    "numerals",
    "parties",
    "sections",
    "statutes",
    "text_checks",
    "verdict",
)


@cache
def parser_version() -> str:
    """'parser-' and the first 12 hex digits of sha256 over the rule modules (line endings normalised)."""
    digest = hashlib.sha256()
    for name in PARSER_MODULES:
        digest.update((_HERE / f"{name}.py").read_bytes().replace(b"\r\n", b"\n"))
    return f"parser-{digest.hexdigest()[:12]}"

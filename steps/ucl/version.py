"""The protocol version of UCL-Bench runs: a short hash of everything that shapes a dialogue.

It enters every run id (a changed template or policy is a different run, so an old resume journal is never
reused) and the metadata of every scripted call (scripted answers are cached by content, metadata included;
a changed policy must not be answered from the cache).
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

_HERE = Path(__file__).parent
_SOURCES = (
    "scenario.py",
    "tasks.py",
    "hints.py",
    "instances.py",
    "scripted.py",
    "speaking.py",
    "prompts.py",
    "templates/user.j2",
    "templates/released_user.j2",
    "templates/assistant.j2",
)


@cache
def protocol_version() -> str:
    digest = hashlib.sha256()
    for name in _SOURCES:
        digest.update(name.encode() + b"\0" + (_HERE / name).read_bytes() + b"\0")
    return f"ucl@{digest.hexdigest()[:8]}"

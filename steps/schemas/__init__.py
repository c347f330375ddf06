"""pandera schemas of the kernel's tables, and the table kit every benchmark's schemas build on.

Each schema is strict (no unknown columns), coerces dtypes, and states the rules a row must satisfy. The kernel's
tables: `usage` (model usage and the call cache), `runs` (the turns and dialogues of every dialogue benchmark),
`judged` (the base of every judged table). A benchmark's own tables are in its package (`steps/<benchmark>/schemas.py`,
J1's in its sub-packages), and the interim tables of stage `ingest` in `steps/<benchmark>/sources.py`.
"""

from steps.schemas.base import Strict, TableError, is_list_of, is_list_of_dicts_with, validate
from steps.schemas.judged import Judged
from steps.schemas.runs import Dialogues, Turns
from steps.schemas.usage import CallCache, ModelUsage, UsageLog

__all__ = [
    "CallCache",
    "Dialogues",
    "Judged",
    "ModelUsage",
    "Strict",
    "TableError",
    "Turns",
    "UsageLog",
    "is_list_of",
    "is_list_of_dicts_with",
    "validate",
]

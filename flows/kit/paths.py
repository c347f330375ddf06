"""The project's own paths (`PATHS`: data/, reports/, .cache/ under the working directory); the layout is
`steps.paths`."""

from steps.paths import (
    CALL_CACHE,
    DIALOGUES,
    JUDGE_USAGE,
    RUN_JSON,
    TURNS,
    USAGE,
    Paths,
    call_cache_path,
    safe_child,
)

PATHS = Paths()

__all__ = [
    "CALL_CACHE",
    "DIALOGUES",
    "JUDGE_USAGE",
    "PATHS",
    "RUN_JSON",
    "TURNS",
    "USAGE",
    "Paths",
    "call_cache_path",
    "safe_child",
]

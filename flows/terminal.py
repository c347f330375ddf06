"""Rich output that fits the terminal: tables whose cells wrap instead of being cut with an ellipsis, and no
80-column cut when the output goes to a file or a pipe."""

from __future__ import annotations

import os
from typing import Any

from rich.console import Console
from rich.table import Table

# Width of output that goes to a file or a pipe (rich would assume 80 columns); COLUMNS overrides it.
PIPE_WIDTH = 200


def console(stderr: bool = False) -> Console:
    """A console as wide as the terminal, or PIPE_WIDTH columns when the output is not a terminal."""
    out = Console(stderr=stderr)
    if not out.is_terminal and "COLUMNS" not in os.environ:
        out.width = PIPE_WIDTH
    return out


def table(*headers: str, **kwargs: Any) -> Table:
    """A table whose columns fold their text when the console is narrower than the table (rich's default cuts
    cells to `…`): nothing is lost at any width."""
    out = Table(**kwargs)
    for header in headers:
        out.add_column(header, overflow="fold")
    return out

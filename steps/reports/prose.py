"""Report prose as Jinja templates beside each benchmark's report module (`steps/<benchmark>/templates/`).

The Python builds the tables and the figures; a template holds the headers, captions and notes around them.
Filters: `table` renders a DataFrame as a Markdown table (`steps.reports.markdown`), `oneline` joins a paragraph
written over several template lines into the one line the report has (a line break in the template is a
space).
A missing figure is an error (StrictUndefined), never an empty hole in a report.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from steps.reports.markdown import markdown_table


def oneline(text: str) -> str:
    """A paragraph as one line: the template's lines stripped and joined by single spaces (a final line break
    stays, so the paragraph ends where the block ends)."""
    joined = " ".join(part.strip() for part in text.split("\n") if part.strip())
    return joined + "\n" if text.endswith("\n") and joined else joined


@cache
def _environment(folder: Path) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(folder)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["table"] = markdown_table
    env.filters["oneline"] = oneline
    return env


def render_template(folder: Path, name: str, **figures: Any) -> str:
    """Render the report template `name` of `folder` with the figures (tables, numbers, labels) given."""
    return _environment(folder).get_template(name).render(**figures)

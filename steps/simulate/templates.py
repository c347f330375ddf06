"""Rendering a scenario's Jinja templates (prompts live beside each scenario, as data)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jinja2


@cache
def _environment(folder: str) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        undefined=jinja2.StrictUndefined,  # a missing field is an error, never an empty slot in a prompt
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def render(folder: str | Path, name: str, context: dict[str, Any]) -> str:
    """Render template `name` from `folder`; a field the template uses but the context lacks is an error."""
    return _environment(str(folder)).get_template(name).render(**context).strip()

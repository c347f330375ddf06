"""Judge prompts: Jinja templates beside the judges (or in a benchmark's own `templates/` folder, given as `folder`),
or supplied by a caller, and their versions.

A prompt version is the template's name with a short hash of its source and of any data rendered into it
(a checklist, a rubric), so a score row says exactly which wording produced it.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

TEMPLATES = Path(__file__).parent / "templates"


@cache
def _environment(folder: Path = TEMPLATES) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(folder)),
        undefined=jinja2.StrictUndefined,  # a missing slot is an error, never an empty hole in a prompt
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        autoescape=False,
    )


def template_source(name: str, folder: Path = TEMPLATES) -> str:
    return (folder / name).read_text(encoding="utf-8")


def render(template: str, context: dict[str, Any], *, inline: bool = False, folder: Path = TEMPLATES) -> str:
    """Render a template file of `folder` (this package's by default), or (inline=True) a template given as source
    text."""
    env = _environment(folder)
    compiled = env.from_string(template) if inline else env.get_template(template)
    return compiled.render(**context).strip()


def version(name: str, source: str, *data: Any) -> str:
    """`name@hash8` over the template source and the data rendered into it."""
    payload = json.dumps([source, *data], ensure_ascii=False, sort_keys=True, default=str)
    return f"{name}@{hashlib.sha256(payload.encode()).hexdigest()[:8]}"

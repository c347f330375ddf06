"""The extraction prompt of one case (our own Chinese templates in `templates/`) and its call metadata.

The metadata carries what the scripted offline model needs to answer (the parsed sections and the parser's
readings); the door passes metadata to scripted models only, never to real ones.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from steps.j1.extract.inputs import CaseInput
from steps.j1.extract.model import ParsedCase

TEMPLATES = Path(__file__).parent / "templates"
SCENARIO = "extraction"
PROMPT_VERSION = 1  # bump when a template changes: it enters the run id


@dataclass(frozen=True)
class Prompt:
    case_id: str
    kind: str
    messages: list[dict[str, str]]
    metadata: dict[str, Any]


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,  # a field the template uses but the context lacks is an error
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def render(name: str, **context: Any) -> str:
    return _environment().get_template(name).render(**context).strip()


def build_prompt(case: CaseInput) -> Prompt:
    """System and user messages for one case, and the scripted model's context."""
    messages = [
        {"role": "system", "content": render("system.j2")},
        {"role": "user", "content": render(f"{case.kind}.j2", document=case.text)},
    ]
    metadata = {"scenario": SCENARIO, "instance_id": case.case_id, **scripted_context(case.parsed)}
    return Prompt(case.case_id, case.kind, messages, metadata)


def repair_message(errors: dict[str, str]) -> dict[str, str]:
    """The follow-up that shows the model which fields failed validation and why."""
    return {"role": "user", "content": render("repair.j2", errors=errors)}


def scripted_context(parsed: ParsedCase) -> dict[str, Any]:
    """The parsed sections and readings, as plain JSON values."""
    return {
        "kind": parsed.kind,
        "procedure": str(parsed.header.procedure),
        "sections": {k: v for k, v in asdict(parsed.sections).items() if v},
        "parties": [{"role": p.role, "name": p.name, "birth_date": p.birth_date} for p in parsed.parties],
        "defendants": [
            {
                "name": d.name,
                "charges": list(d.charges),
                "prison_months": d.prison_months,
                "probation_months": d.probation_months,
                "fine_yuan": d.fine_yuan,
            }
            for d in parsed.defendants
        ],
        "statutes": [
            {"law": s.law, "article": s.article, "source": s.source, "basis": s.basis} for s in parsed.statutes
        ],
    }

"""Prompts for the models under test and the PLawBench rules for the judge (our own Chinese templates).

Each category has an instruction template (`<category>_system.j2`) and an input template
(`<category>_user.j2`). As in the repo's generator the default layout is one user message (instructions, a
blank line, the input); `split_system=True` sends the instructions as a system message instead (spec §6.10).
The judge is shown the same input, so it knows what was asked.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from steps.plawbench.params import PlawBenchParams

TEMPLATES = Path(__file__).parent / "templates"
CATEGORIES = ("consultation", "case_analysis", "drafting")


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def render(name: str, **context: Any) -> str:
    return _environment().get_template(name).render(**context).strip()


def task_input(task: Any) -> str:
    """The input block of a task row (`tasks` table): case + question, or the client's narrative."""
    if task.category == "case_analysis":
        return render("case_analysis_user.j2", context=task.context, question=task.query)
    return render(f"{task.category}_user.j2", conversation=task.query)


def agent_messages(task: Any, options: PlawBenchParams) -> list[dict[str, str]]:
    system = render(
        f"{task.category}_system.j2", min_questions=options.min_questions, max_questions=options.max_questions
    )
    user = task_input(task)
    if options.split_system:
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]
    return [{"role": "user", "content": f"{system}\n\n{user}"}]


def judge_rules(task: Any, options: PlawBenchParams) -> tuple[str, ...]:
    text = render(f"judge/judge_{task.category}.j2", max_questions=options.max_questions, document=task.document)
    return tuple(line.strip() for line in text.splitlines() if line.strip())


def templates_version(*, judge: bool = False, folder: Path = TEMPLATES) -> str:
    """A short hash of every PLawBench template but the judges' (templates/judge/; with them: `judge`): it enters
    the run id of predictions (without) and judgements (with), so a changed judge prompt leaves the answers alone."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*.j2")):
        if not judge and path.relative_to(folder).parts[0] == "judge":
            continue
        digest.update(path.relative_to(folder).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:8]

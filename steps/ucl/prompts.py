"""Which prompts UCL-Bench's roles read (`ucl.prompts`): the released per-task templates, or ours.

`released` (the default): the pinned `legal_prompt.json` (spec ucl-bench §2.2) holds three templates per task,
read at run time through the interim table (columns `role_template`, `model_template`, `evaluation_template`),
never copied into the repository:

- `role prompt` drives the simulated user (its system message; spec §3.2),
- `model prompt` the assistant under test (its system message; spec §3.4),
- `evaluation prompt` the pairwise judge (one user message; spec §4.1).

`ours`: our Jinja templates for the user (templates/user.j2) and the pairwise judge (templates/judge/judge_pairwise.j2);
the assistant still gets the task's released model prompt (there is no prompt of ours for it). The pointwise
hint judge (templates/judge/judge_hints.j2) is ours in both: the paper has no pointwise protocol.

A released template is filled as the original code did (`str.format` with these slots), but in one pass over its
placeholders only, so braces in the case text are never read as slots. Every run records its prompt source and
a hash of each template it used (`prompt_record`, in run.json `prompts`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

PromptSource = Literal["released", "ours"]
RELEASED: PromptSource = "released"
OURS: PromptSource = "ours"
RELEASED_FILE = "ucl/legal_prompt.json"  # its path in the pinned mirror (sources.yaml)
TEMPLATES = Path(__file__).parent / "templates"

# what each role reads under each source: the interim table's column (released) or our template file (ours)
RELEASED_COLUMNS = {"user": "role_template", "assistant": "model_template", "judge": "evaluation_template"}
OUR_FILES = {"user": "user.j2", "judge": "judge/judge_pairwise.j2"}  # the judges' prompts: templates/judge/
HINT_JUDGE_FILE = "judge/judge_hints.j2"

_SLOT = re.compile(r"\{(information|needs|evaluation_hints|dialogue1|dialogue2)\}")


def fill(template: str, **slots: str) -> str:
    """A released template with each `{slot}` it names replaced by its value, in one pass (a value that itself
    holds `{needs}` is left as it is); a placeholder without a value is an error."""

    def value(m: re.Match[str]) -> str:
        if m.group(1) not in slots:
            raise KeyError(f"no value for the released template's placeholder {{{m.group(1)}}}")
        return slots[m.group(1)]

    return _SLOT.sub(value, template)


def digest(text: str) -> str:
    """A template's hash as run.json records it: sha256, first 12 hex digits."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def label(source: str) -> str:
    """The prompt source as reports name it."""
    return "released (legal_prompt.json)" if source == RELEASED else "ours"


def _per_task(rows: Iterable[dict[str, Any]], column: str) -> dict[str, str]:
    return {str(r["task"]): digest(str(r[column])) for r in sorted(rows, key=lambda r: str(r["task"]))}


def _ours(name: str) -> str:
    """`<file name>@<hash>` of one of our templates (by its name alone, wherever under templates/ it is)."""
    return f"{Path(name).name}@{digest((TEMPLATES / name).read_text(encoding='utf-8'))}"


def prompt_record(source: PromptSource, items: Any, roles: Iterable[str]) -> dict[str, Any]:
    """What a run records of its prompts: the source, and per role the hash of each template it used (per task
    for a released template, by file for ours). `items`: the ucl table rows the run covers (a DataFrame)."""
    rows = items.drop_duplicates("task").to_dict("records")
    templates: dict[str, Any] = {}
    for role in roles:
        if role == "hint_judge":
            templates[role] = _ours(HINT_JUDGE_FILE)
        elif source == RELEASED or role == "assistant":
            templates[role] = _per_task(rows, RELEASED_COLUMNS[role])
        else:
            templates[role] = _ours(OUR_FILES[role])
    record: dict[str, Any] = {"source": source, "templates": templates}
    if source == RELEASED or "assistant" in templates:
        record["released_file"] = RELEASED_FILE
    return record


def used_released(data_dir: Path, run_dir: Path) -> list[str]:
    """The released templates a run used, as text: each role's per-task template whose hash its run.json records
    (`prompts.templates`), read from the interim table under `data_dir` (the user's role prompt under `released`,
    the assistant's model prompt always); [] for a run without a record or one that used only ours."""
    import json

    import pandas as pd

    spec = run_dir / "run.json"
    record = json.loads(spec.read_text(encoding="utf-8")).get("prompts") if spec.is_file() else None
    wanted = [
        (RELEASED_COLUMNS[role], str(task), str(hashed))
        for role, per_task in ((record or {}).get("templates") or {}).items()
        if role in RELEASED_COLUMNS and isinstance(per_task, dict)
        for task, hashed in per_task.items()
    ]
    if not wanted:
        return []
    columns = sorted({column for column, _, _ in wanted})
    table = pd.read_parquet(data_dir / "interim" / "ucl.parquet", columns=["task", *columns]).drop_duplicates("task")
    by_task = {str(r["task"]): r for r in table.to_dict("records")}
    return [
        str(by_task[task][column])
        for column, task, hashed in wanted
        if task in by_task and digest(str(by_task[task][column])) == hashed
    ]


def describe(source: str) -> str:
    """One sentence for the report: which role reads which prompt under `source`."""
    if source == RELEASED:
        return (
            f"{label(source)}: the simulated user reads its task's released role prompt, the assistant its model "
            "prompt and the pairwise judge its evaluation prompt, read from the pinned data at run time"
        )
    return (
        f"{label(source)}: the simulated user and the pairwise judge read our Chinese templates "
        "(steps/ucl/templates); the assistant reads its task's released model prompt"
    )


def runs_label(sources: dict[str, str | None]) -> str:
    """The report's prompt label from what each run recorded (run name -> its run.json `prompts.source`, None for
    a run that recorded none): the one source all share, or each run's when they differ."""
    distinct = set(sources.values())
    if len(distinct) == 1 and (only := next(iter(distinct))) in (RELEASED, OURS):
        return describe(only)
    parts = [f"{name} {src or 'not recorded'}" for name, src in sorted(sources.items())]
    return "mixed, not comparable across runs (" + ", ".join(parts) + ")"

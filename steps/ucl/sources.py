"""UCL-Bench's interim table (stage `ingest`): 23 task keys x 10 public items, with the evaluation hints split by
level; its loader and schema.

Spec ucl-bench.md §2. Each row keeps the record's pre-filled `role_prompt` / `model_prompt` and its task's three
released templates from `legal_prompt.json` (`role_template`, `model_template`, `evaluation_template`), which
`ucl.prompts: released` gives to the user, the assistant and the pairwise judge (steps/ucl/prompts.py; the
templates are read from the pinned data at run time, never copied into the repository).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

from steps.registry import SourceTable
from steps.schemas.base import Strict
from steps.sources.errors import SourceFormatError
from steps.sources.readers import read_json, require_keys
from steps.sources.types import Fetched
from steps.ucl.sql import QUERIES

RECORD_FIELDS = [
    "id",
    "task_name",
    "information",
    "needs",
    "role_prompt",
    "model_prompt",
    "evaluation_prompt",
    "evaluation_hints",
]

# data label -> column; 建议提及 is the paper's (Fig. 10) name for 应该提及.
HINT_LEVELS = {
    "答案参考": "hint_answer",
    "必须提及": "hint_must",
    "应该提及": "hint_should",
    "建议提及": "hint_should",
    "鼓励提及": "hint_encouraged",
    "禁止提及": "hint_forbidden",
}
_LABEL = re.compile(r"^\s*(" + "|".join(HINT_LEVELS) + r")\s*[：:]\s*")


def split_hints(text: str, *, label: str = "", where: str = "") -> dict[str, str | None]:
    """Split the labelled hint string into one text per level (None when a level is absent).

    A line that starts with a level label opens that level; other non-empty lines continue the open
    level (enumerations like （一）…（十一） span several lines).
    """
    parts: dict[str, list[str]] = {}
    current: str | None = None
    for line in text.split("\n"):
        m = _LABEL.match(line)
        if m:
            current = HINT_LEVELS[m.group(1)]
            parts.setdefault(current, [])
            rest = line[m.end() :].strip()
            if rest:
                parts[current].append(rest)
        elif line.strip():
            if current is None:
                raise SourceFormatError(label, where, f"hint text before any level label: {line[:40]!r}")
            parts[current].append(line.strip())
    columns: dict[str, str | None] = dict.fromkeys(HINT_LEVELS.values())
    for col, lines in parts.items():
        columns[col] = "\n".join(lines)
    return columns


def load_ucl(files: list[Fetched]) -> pd.DataFrame:
    by_name = {PurePosixPath(f.source.path).name: f for f in files}
    for needed in ("legal_data_sample.json", "legal_prompt.json"):
        if needed not in by_name:
            raise SourceFormatError("ucl", "sources.yaml", f"{needed} is not listed for dataset 'ucl'")
    data_f, prompt_f = by_name["legal_data_sample.json"], by_name["legal_prompt.json"]
    data = read_json(data_f.local, str(data_f.local))
    templates = read_json(prompt_f.local, str(prompt_f.local))
    if not isinstance(data, dict) or not isinstance(templates, dict):
        raise SourceFormatError(str(data_f.local), "top level", "expected an object keyed by task name")
    rows = []
    for task, records in data.items():
        label = str(data_f.local)
        tmpl = (
            require_keys(
                templates.get(task),
                ["role prompt", "model prompt", "evaluation prompt"],
                file=str(prompt_f.local),
                where=f"task '{task}'",
            )
            if task in templates
            else None
        )
        if tmpl is None:
            raise SourceFormatError(str(prompt_f.local), f"task '{task}'", "no prompt templates for this task")
        for i, rec in enumerate(records):
            where = f"task '{task}' record {i}"
            require_keys(rec, RECORD_FIELDS, file=label, where=where)
            if rec["task_name"] != task:
                raise SourceFormatError(label, where, f"task_name '{rec['task_name']}' differs from its parent key")
            rows.append(
                {
                    "item_id": f"{task}/{rec['id']}",
                    "task": task,
                    "id": int(rec["id"]),
                    "information": rec["information"],
                    "needs": rec["needs"],
                    "evaluation_hints": rec["evaluation_hints"],
                    **split_hints(rec["evaluation_hints"], label=label, where=where),
                    "role_prompt": rec["role_prompt"],
                    "model_prompt": rec["model_prompt"],
                    "evaluation_prompt": rec["evaluation_prompt"],
                    "role_template": tmpl["role prompt"],
                    "model_template": tmpl["model prompt"],
                    "evaluation_template": tmpl["evaluation prompt"],
                }
            )
    return pd.DataFrame(rows)


class Ucl(Strict):
    item_id: Series[str] = pa.Field(unique=True)
    task: Series[str] = pa.Field(str_length={"min_value": 1})
    id: Series[int] = pa.Field(ge=0)
    information: Series[str]
    needs: Series[str] = pa.Field(str_length={"min_value": 1})
    evaluation_hints: Series[str]
    hint_answer: Series[str] = pa.Field(nullable=True)
    hint_must: Series[str] = pa.Field(nullable=True)
    hint_should: Series[str] = pa.Field(nullable=True)
    hint_encouraged: Series[str] = pa.Field(nullable=True)
    hint_forbidden: Series[str] = pa.Field(nullable=True)
    role_prompt: Series[str] = pa.Field(str_length={"min_value": 1})
    model_prompt: Series[str] = pa.Field(str_length={"min_value": 1})
    evaluation_prompt: Series[str] = pa.Field(str_contains="{dialogue1}")
    role_template: Series[str]
    model_template: Series[str]
    evaluation_template: Series[str] = pa.Field(str_contains="{dialogue1}")


TABLES = (SourceTable("ucl", "UCL-Bench public items", load_ucl, Ucl, summary=QUERIES.path("data_ucl")),)

"""One record for everything extraction could not do: the parser's issues, failed or invalid model answers,
mandatory fields left empty, and values that the cross-check found disagreeing or ungrounded."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from steps.j1.extract.model import Issue


class Stage(StrEnum):
    PARSER = "parser"
    LLM = "llm"
    CROSSCHECK = "crosscheck"


class LLMIssue(StrEnum):
    CALL_FAILED = "call_failed"  # the model call failed after the door's retries
    INVALID = "invalid"  # the answer did not validate, also after the repair rounds
    MISSING = "missing"  # a mandatory field is empty
    DISAGREEMENT = "disagreement"  # the model and the parser read different values
    UNGROUNDED = "ungrounded"  # a free-text value shares no substantial span with the document


@dataclass(frozen=True)
class IssueRow:
    """One issue of one case. `subject` names the defendant, party or item it is about, when there is one."""

    stage: Stage
    field: str
    kind: str
    detail: str
    subject: str | None = None
    parser_value: Any = None
    llm_value: Any = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "stage": str(self.stage),
            "field": self.field,
            "subject": self.subject,
            "kind": self.kind,
            "detail": self.detail,
            "parser_value": _json(self.parser_value),
            "llm_value": _json(self.llm_value),
        }


def from_parser(issue: Issue) -> IssueRow:
    return IssueRow(Stage.PARSER, issue.field, str(issue.kind), issue.detail)


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)

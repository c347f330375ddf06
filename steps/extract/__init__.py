"""Deterministic parser of Chinese court judgments: criminal full texts (JuDGE) and sectioned civil cases (C3RD)."""

from steps.extract.civil import parse_civil
from steps.extract.criminal import parse_criminal
from steps.extract.frame import cases_frame
from steps.extract.model import Issue, IssueKind, ParsedCase, Statute

__all__ = ["Issue", "IssueKind", "ParsedCase", "Statute", "cases_frame", "parse_civil", "parse_criminal"]

"""Deterministic parser of Chinese court judgments: criminal full texts (JuDGE) and sectioned civil cases (C3RD)."""

from steps.j1.extract.civil import parse_civil
from steps.j1.extract.criminal import parse_criminal
from steps.j1.extract.frame import cases_frame
from steps.j1.extract.model import Issue, IssueKind, ParsedCase, Statute

__all__ = ["Issue", "IssueKind", "ParsedCase", "Statute", "cases_frame", "parse_civil", "parse_criminal"]

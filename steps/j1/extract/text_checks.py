"""Input checks shared by both entry points: garbled characters and texts too long to parse whole."""

from __future__ import annotations

import re

from steps.j1.extract.model import Issue, IssueKind

MAX_CHARS = 60_000  # JuDGE texts are 1,000-3,000 characters; a judgment 20 times longer is not one document
# U+FFFD, GBK read as UTF-8 (锟斤拷), UTF-8 read as Latin-1 (Ã¤), control characters
_GARBLED = re.compile(r"\ufffd|锟斤拷|烫烫|屯屯|[ÃÂ][\x80-\xbf¡-¿]|[\x00-\x08\x0b\x0c\x0e-\x1f]")


def check_text(text: str) -> tuple[str, list[Issue]]:
    """The text to parse and the issues found in it: garbled characters, and truncation of an over-long text.

    A text over MAX_CHARS keeps its first and last halves: the heading and parties open a judgment, the
    reasoning, verdict and appendix close it, and the middle (facts, evidence) is what is dropped.
    """
    issues: list[Issue] = []
    garbled = _GARBLED.findall(text)
    if garbled:
        issues.append(Issue("text", IssueKind.GARBLED, f"{len(garbled)} garbled sequences, e.g. {garbled[0]!r}"))
    if len(text) > MAX_CHARS:
        half = MAX_CHARS // 2
        issues.append(Issue("text", IssueKind.TRUNCATED, f"{len(text)} characters; the middle was dropped"))
        text = text[:half] + " " + text[-half:]
    return text, issues

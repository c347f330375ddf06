"""Is a free-text value taken from the document? Shared spans of characters, after dropping layout and punctuation.

The model is told to copy passages verbatim, so a grounded value shares a long span with the document. Both are
compared as runs of letters and digits only (punctuation, spaces and full-width forms differ between copies).
A value is grounded when its longest shared span reaches MIN_SPAN characters (or the whole value, for a short
one such as 欠条); a value longer than LONG must also have at least MIN_COVERAGE of its characters inside
shared spans, so that one copied phrase cannot carry an invented paragraph.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

K = 4  # the n-gram length spans are built from
MIN_SPAN = 10
LONG = 40
MIN_COVERAGE = 0.6
_NOISE = re.compile(r"[^\w]|_", re.UNICODE)


def normalise(text: str) -> str:
    """Letters and digits only, full-width forms folded (１２ → 12, Ａ → A)."""
    return _NOISE.sub("", unicodedata.normalize("NFKC", text or ""))


@dataclass(frozen=True)
class Match:
    grounded: bool
    span: int  # longest shared run, in characters
    coverage: float  # share of the value's characters inside shared runs
    length: int  # characters compared

    def reason(self) -> str:
        if not self.length:
            return "no letters or digits to compare with the document"
        return (
            f"longest span shared with the document {self.span} of {self.length} characters, "
            f"{self.coverage:.0%} covered (needs ≥ {min(MIN_SPAN, self.length)}"
            + (f" and ≥ {MIN_COVERAGE:.0%})" if self.length > LONG else ")")
        )


class Grounding:
    """The document, indexed for span checks."""

    def __init__(self, document: str):
        self.text = normalise(document)
        self.grams = {self.text[i : i + K] for i in range(len(self.text) - K + 1)}

    def check(self, value: str) -> Match:
        v = normalise(value)
        if len(v) <= K:
            hit = bool(v) and v in self.text
            return Match(hit, len(v) if hit else 0, 1.0 if hit else 0.0, len(v))
        present = [v[i : i + K] in self.grams for i in range(len(v) - K + 1)]
        covered = [False] * len(v)
        longest = run = 0
        for i, hit in enumerate(present):
            run = run + 1 if hit else 0
            longest = max(longest, run)
            if hit:
                covered[i : i + K] = [True] * K
        span = longest + K - 1 if longest else 0
        coverage = sum(covered) / len(v)
        grounded = span >= min(MIN_SPAN, len(v)) and (len(v) <= LONG or coverage >= MIN_COVERAGE)
        return Match(grounded, span, round(coverage, 4), len(v))

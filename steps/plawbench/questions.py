"""The questions in a consultation answer, so that only the first N are judged (repo `legal_qa`, spec §3.3)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUMBERED = re.compile(r"^\s*(?:\d+\s*[.．、)）]|[（(]\s*\d+\s*[)）]|[①-⑳])\s*")
_SENTENCE = re.compile(r"[^？?\n]+[？?]")


@dataclass(frozen=True)
class Questions:
    kept: list[str]
    total: int

    @property
    def truncated(self) -> bool:
        return self.total > len(self.kept)

    def text(self) -> str:
        return "\n".join(f"{i}. {q}" for i, q in enumerate(self.kept, 1))


def split_questions(text: str) -> list[str]:
    """Numbered lines when the answer numbers its questions, else sentences ending in a question mark."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    numbered = [_NUMBERED.sub("", ln).strip() for ln in lines if _NUMBERED.match(ln)]
    if numbered:
        return [q for q in numbered if q]
    return [m.group(0).strip() for m in _SENTENCE.finditer(text)]


def first_questions(text: str, limit: int) -> Questions:
    found = split_questions(text)
    return Questions(found[:limit], len(found))

"""The texts III-2 (judgment) and III-5 (reasoning) compare, on both sides (spec j1-envs §5.8, §5.11, §9.3-19).

III-2 compares the agent's rulings (after 判决如下) with the court's numbered rulings without the appeal notice;
III-5 compares the agent's 本院认为 paragraph with the court's reasoning, both without the 本院认为 lead, which
every judgment has and which says nothing. When the agent's judgment has no such part, the whole final
utterance is judged instead (the reference behaviour).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from steps.j1.extract.sections import judgment_parts, strip_appeal_notice

_NUMERALS = "一二三四五六七八九十"
_LEAD = re.compile(r"^\s*本院认为[，,：:\s]*")
_ITEM_NUMBER = re.compile(rf"^\s*(?:[{_NUMERALS}]+[、.．]|\d+[、.．]|[（(][{_NUMERALS}\d]+[）)])\s*")


def _numeral(n: int) -> str:
    if n <= 10:
        return _NUMERALS[n - 1]
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else _NUMERALS[tens - 1]) + "十" + (_NUMERALS[ones - 1] if ones else "")


def reference_rulings(rulings: Sequence[str]) -> str:
    """The court's rulings numbered 一、二、… without the appeal notice."""
    items = [_ITEM_NUMBER.sub("", strip_appeal_notice(r)).strip() for r in rulings]
    items = [i for i in items if i]
    return "\n".join(f"{_numeral(n)}、{item}" for n, item in enumerate(items, 1))


def without_lead(reasoning: str) -> str:
    """A reasoning paragraph without its 本院认为 lead."""
    return _LEAD.sub("", reasoning).strip()


def candidate_rulings(judgment: str) -> str:
    """The agent's rulings, or its whole judgment when no rulings part can be cut out."""
    return judgment_parts(judgment).rulings or judgment.strip()


def candidate_reasoning(judgment: str) -> str:
    """The agent's 本院认为 paragraph without the lead, or its whole judgment when there is none."""
    reasoning = judgment_parts(judgment).reasoning
    return without_lead(reasoning) if reasoning else judgment.strip()

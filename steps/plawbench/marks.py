"""Point markers and deduction clauses in rubric text, with full- and half-width forms alike.

The rubrics write points as `（+5分）`, `(+5分)`, `（+5）`, `+10分`, `（10分）`, `（占 15 分）` and `+2.5分`
(spec plawbench.md §2.1), and deductions as `扣2分`, `每少一项扣1分`, `扣完5分为止` (a floor, not a
deduction) or `不扣分` (an optional elaboration).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NUMBER = r"(\d+(?:\.\d+)?)"
# a bracket holding nothing but points: （+5分） (+5) ［+5分］ （10分） （占 15 分）
BRACKET_MARK = re.compile(rf"[（(\[［]\s*[+＋]\s*{NUMBER}\s*分?\s*[)）\]］]|[（(]\s*(?:占\s*)?{NUMBER}\s*分\s*[)）]")
BARE_MARK = re.compile(rf"[+＋]\s*{NUMBER}\s*分")
DEDUCT = re.compile(rf"扣\s*{NUMBER}\s*分")
CAP_NOTE = re.compile(r"扣(?:完|满|至)")
NO_DEDUCT = re.compile(r"不扣分")
REPEAT = re.compile(r"每(?:出现|有|少|缺|遗漏|一处|一项|处|项|个)|各扣|少一[个项点]|缺一[个项点]|少提及一|累计")
COUNT_OF = re.compile(r"(?:以下|下列)\s*(\d+|[二三四五六七八九十])\s*项|(\d+|[二三四五六七八九十])\s*项要求")
TOTAL_LINE = re.compile(rf"总分\s*[：:]\s*{NUMBER}")
# where a bare +N分 may begin an item: at the start, or after a sentence end or an opening bracket
_BARE_OK_BEFORE = tuple("。；;：:（([【】")
_CN_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九十")}


@dataclass(frozen=True)
class Mark:
    start: int
    end: int
    points: float


def _value(m: re.Match) -> float:
    return float(next(g for g in m.groups() if g is not None))


def find_marks(text: str) -> list[Mark]:
    """Every item marker in `text`, in order.

    A bare `+N分` counts only where an item can begin: `直接+10分` or `每个推理点 + 10 分` are notes inside
    an item, not items. A bracket right after 扣 is a deduction, not credit.
    """
    marks = []
    for m in BRACKET_MARK.finditer(text):
        if text[: m.start()].rstrip().endswith("扣"):
            continue
        marks.append(Mark(m.start(), m.end(), _value(m)))
    taken = [(k.start, k.end) for k in marks]
    for m in BARE_MARK.finditer(text):
        if any(s <= m.start() < e for s, e in taken):
            continue
        before = text[: m.start()].rstrip()
        if before and not before.endswith(_BARE_OK_BEFORE):
            continue
        marks.append(Mark(m.start(), m.end(), _value(m)))
    return sorted(marks, key=lambda k: k.start)


def remove_marks(text: str, marks: list[Mark]) -> str:
    for mark in sorted(marks, key=lambda k: -k.start):
        text = text[: mark.start] + text[mark.end :]
    return text


@dataclass(frozen=True)
class Deduction:
    text: str
    points: float
    repeatable: bool
    max_times: int | None


def deduction_clauses(text: str) -> list[Deduction]:
    """The `扣N分` clauses of a text (one per amount), each with the clause around it as its wording."""
    out = []
    for clause in _clauses(text):
        done = 0
        for m in DEDUCT.finditer(clause):
            start = max(done, _open_bracket(clause, m.start()))
            wording = _clause_text(clause[start : m.end()])
            repeat = bool(REPEAT.search(wording))
            out.append(Deduction(wording, float(m.group(1)), repeat, None if repeat else 1))
            done = m.end()
    return out


def _clauses(text: str) -> list[str]:
    """Split at ；。 and line ends, keeping `A；或B，扣N分` together: the deduction covers both."""
    out: list[str] = []
    for piece in re.split(r"[；;。\n]", text):
        if out and piece.lstrip().startswith("或") and not DEDUCT.search(out[-1]):
            out[-1] = f"{out[-1]}；{piece}"
        else:
            out.append(piece)
    return out


def _open_bracket(text: str, pos: int) -> int:
    """Just after the innermost bracket still open at `pos` (0 when none is open)."""
    depth, start = 0, 0
    for i in range(pos - 1, -1, -1):
        if text[i] in "）)":
            depth += 1
        elif text[i] in "（(":
            if depth == 0:
                start = i + 1
                break
            depth -= 1
    return start


def _clause_text(clause: str) -> str:
    return clause.strip(" \t（()）[]［］【】,，、:：")


def stated_count(text: str) -> int | None:
    """`需同时满足以下 3 项要求` -> 3."""
    m = COUNT_OF.search(text)
    if not m:
        return None
    raw = m.group(1) or m.group(2)
    return int(raw) if raw.isdigit() else _CN_DIGITS.get(raw)


def strip_deduction_notes(text: str) -> str:
    """The credit-earning wording: parenthesised deduction and no-deduction notes removed."""
    out = re.sub(r"[（(][^（()）]*(?:扣|不扣分)[^（()）]*[)）]", "", text)
    return re.sub(r"[ \t]+\n", "\n", out).strip()

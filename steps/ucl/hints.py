"""The answer guidance of one item, split into levels and items (spec ucl-bench §2.3, §6.2).

Levels (the paper's Table 2 plus the data's 禁止提及): answer 答案参考, must 必须提及, should 应该提及,
encouraged 鼓励提及, forbidden 禁止提及. The ingest stage already split the hint string into one text per
level; here each level is split into items: the answer level is one item (a reference answer, possibly several
paragraphs); in the other levels every line is split on its Arabic numbering (1. 2、 3．…, counted in sequence
so that 第133条 or 3.5 分 never split), and a line without numbering, or numbered （一）…, is one item. Item
ids are the level's letter and a counter: A1, M1, M2, S1, E1, F1.

The weights of the pointwise score are ours (answer 4, must 3, should 2, encouraged 1; each forbidden mention
costs 0.1): the paper scores only pairwise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# level -> (id letter, Chinese label as in the data, weight in the pointwise score)
LEVELS: dict[str, tuple[str, str, int]] = {
    "answer": ("A", "答案参考", 4),
    "must": ("M", "必须提及", 3),
    "should": ("S", "应该提及", 2),
    "encouraged": ("E", "鼓励提及", 1),
    "forbidden": ("F", "禁止提及", 0),
}
FORBIDDEN_PENALTY = 0.1
_EDGES = " \t\u3000；;，,、。.．:："
_CHINESE_NUMBERED = re.compile(r"^\s*[（(][一二三四五六七八九十百]+[）)]")


@dataclass(frozen=True)
class HintItem:
    id: str
    level: str
    text: str

    @property
    def label(self) -> str:
        return LEVELS[self.level][1]


def _numbered(line: str) -> list[str]:
    """Split `1.xx；2.xx` into its items (numbers taken in sequence); [line] when it is not numbered."""
    cuts: list[tuple[int, int]] = []
    k, pos = 1, 0
    while True:
        m = re.compile(rf"(?<![0-9]){k}[.．、](?![0-9])").search(line, pos)
        if m is None or (k == 1 and line[: m.start()].strip(_EDGES)):
            break
        cuts.append((m.start(), m.end()))
        pos, k = m.end(), k + 1
    if not cuts:
        return [line]
    ends = [start for start, _ in cuts[1:]] + [len(line)]
    return [line[body:end] for (_, body), end in zip(cuts, ends, strict=True)]


def split_level(level: str, text: str | None) -> list[str]:
    """The item texts of one level (empty for an absent or blank level)."""
    if not isinstance(text, str) or not text.strip():
        return []
    if level == "answer":
        return [text.strip()]
    items: list[str] = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        parts = [line] if _CHINESE_NUMBERED.match(line) else _numbered(line)
        items += [p.strip().strip(_EDGES).strip() for p in parts]
    return [i for i in items if i]


def hint_items(levels: Mapping[str, str | None]) -> list[HintItem]:
    """Every item of an item's guidance, in level order; `levels` maps a level to its text (hint_* columns)."""
    out: list[HintItem] = []
    for level, (letter, _, _) in LEVELS.items():
        for n, text in enumerate(split_level(level, levels.get(level)), 1):
            out.append(HintItem(f"{letter}{n}", level, text))
    return out


def levels_of(row: Mapping[str, Any]) -> dict[str, str | None]:
    """The level texts of a row of the ucl table (columns hint_answer … hint_forbidden)."""
    return {level: row.get(f"hint_{level}") for level in LEVELS}


def key_items(items: list[HintItem]) -> list[HintItem]:
    """What a user is waiting for: the answer and must-mention items, else the most important level present."""
    for wanted in (("answer", "must"), ("should",), ("encouraged",)):
        chosen = [i for i in items if i.level in wanted]
        if chosen:
            return chosen
    return []


def hint_score(status: Mapping[str, float], items: list[HintItem], mentioned: Mapping[str, bool]) -> float | None:
    """The pointwise score in [0, 1]: weighted mean of the per-level mean item credit, minus forbidden mentions.

    `status` gives each non-forbidden item's credit (met 1, partial 0.5, unmet 0); `mentioned` each forbidden
    item's yes/no. None when the guidance has no scorable item (the caller falls back to a holistic score).
    """
    total = weight = 0.0
    for level, (_, _, w) in LEVELS.items():
        level_items = [i for i in items if i.level == level]
        if level == "forbidden" or not level_items:
            continue
        total += w * sum(status[i.id] for i in level_items) / len(level_items)
        weight += w
    if weight == 0:
        return None
    penalty = FORBIDDEN_PENALTY * sum(bool(mentioned.get(i.id)) for i in items if i.level == "forbidden")
    return min(1.0, max(0.0, total / weight - penalty))

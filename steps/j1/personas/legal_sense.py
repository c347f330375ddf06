"""MASER's five legal-sense levels and its distractors, assigned reproducibly (spec maser-mile §1.3–1.4).

The level descriptions here are our own wording of the five levels (MILE instances keep their own texts).
"""

from __future__ import annotations

from dataclasses import dataclass

from steps.j1.personas.seeded import rng_for

LEGAL_SENSE = {
    1: "几乎没有法律知识，不会用任何法律术语，只会直白地讲发生了什么。",
    2: "听说过“起诉”“违约”之类的词，但不清楚确切含义，偶尔会用错，主要还是讲经过。",
    3: "懂一些日常的法律常识，能正确使用常见的法律说法，讲述时会夹带这些词。",
    4: "熟悉基本的法律概念，能准确使用较专业的术语，比如“诉讼时效”“强制执行”。",
    5: "法律常识扎实，了解一些基础条文，能把问题讲清楚，还会主动提出对自己有利的主张。",
}

# Fields of a person's or a company's particulars that may be withheld until asked twice (never the name).
WITHHOLDABLE = {
    "person": ("gender", "birth_date", "ethnicity", "address"),
    "entity": ("address", "legal_representative"),
}


@dataclass(frozen=True)
class Distractors:
    withheld_field: str | None  # given only when asked a second time
    vague_facts: bool  # the first account of the facts is vague and slightly off
    costs_unprompted: bool  # says nothing about litigation costs unless asked


def assign_legal_sense(*, seed: int, key: str) -> int:
    return rng_for(seed, key, "legal_sense").randint(1, 5)


def assign_distractors(kind: str, available: set[str], *, seed: int, key: str) -> Distractors:
    """Pick a withheld particular among those the role actually has (uniform), as MASER does."""
    candidates = [f for f in WITHHOLDABLE.get(kind, ()) if f in available]
    rng = rng_for(seed, key, "distractors")
    return Distractors(rng.choice(candidates) if candidates else None, vague_facts=True, costs_unprompted=True)

"""III-6 law accuracy: cited (law, article) pairs of the agent's judgment against the court's.

Citations on both sides are read by the extraction parser (`steps.j1.extract.statutes`), so 《刑法》第264条,
刑法第二百六十四条 and 《中华人民共和国刑法》第二百六十四条第一款 are one pair. The pair is (law, article, 之N):
款 and 项 are dropped (spec j1-envs §5.12), but 第一百三十三条之一 is an article of its own, not article 133.
The headline III-6 is recall over the court's pairs, as the reference code computes; precision and F1 are kept
beside it (§9.3-18).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from steps.j1.extract.laws import PRC, law_key
from steps.j1.extract.model import Statute
from steps.j1.extract.statutes import find_statutes

# Where the court itself applies a provision; citations in the claims, the plaintiff's statement or the
# indictment are the parties' and are not the ground truth.
COURT_SOURCES = ("reasoning", "verdict", "appendix")


class LawRef(NamedTuple):
    law: str  # canonical name without title marks or the 中华人民共和国 prefix
    article: int
    sub_article: int | None = None


def law_name_key(name: str) -> str:
    """A law name for comparison: canonical, no title marks, no 中华人民共和国 prefix (spec §9.3-11)."""
    return law_key(name).removeprefix(PRC)


def law_refs(statutes: Iterable[Statute]) -> tuple[LawRef, ...]:
    """Distinct (law, article, 之N) pairs in order of first citation."""
    return tuple(dict.fromkeys(LawRef(law_name_key(s.law), s.article, s.sub_article) for s in statutes))


def court_law_refs(statutes: Iterable[Statute], sources: tuple[str, ...] = COURT_SOURCES) -> tuple[LawRef, ...]:
    """The ground truth of III-6: provisions the court cites in its own sections (`Statute.source`)."""
    return law_refs(s for s in statutes if s.source in sources)


def cited_refs(text: str) -> tuple[LawRef, ...]:
    """The pairs a judgment written as text cites, read by the extraction parser."""
    found, _ = find_statutes(text)
    return law_refs(s for _, s in found)


@dataclass(frozen=True)
class LawAccuracy:
    """III-6 of one case: `value` is recall over the court's pairs; None when the court cites none."""

    value: float | None
    precision: float
    f1: float
    truth: tuple[LawRef, ...]
    cited: tuple[LawRef, ...]
    matched: tuple[LawRef, ...]


def law_accuracy(judgment: str | None, truth: Iterable[LawRef]) -> LawAccuracy:
    """III-6 recall, precision and F1 of the agent's judgment (None or empty: nothing cited, all 0)."""
    gt = tuple(dict.fromkeys(truth))
    cited = cited_refs(judgment) if judgment else ()
    matched = tuple(r for r in gt if r in set(cited))
    if not gt:
        return LawAccuracy(None, 0.0, 0.0, gt, cited, matched)
    recall = len(matched) / len(gt)
    precision = len(matched) / len(cited) if cited else 0.0
    f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
    return LawAccuracy(recall, precision, f1, gt, cited, matched)

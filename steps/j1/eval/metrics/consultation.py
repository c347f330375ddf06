"""Level I (KQ, LC): I-1 binary accuracy and the rule half of I-2, from the supervisor's per-exchange checks.

The supervisor labels each exchange with the topic it addressed and summarises the agent's answer (for a yes/no
topic 是, 否 or 视情况而定; 无 when the agent did not answer), spec j1-envs §5.3, §6.3-a. A topic's exchanges
are pooled: the first definitive 是/否 decides it, a conditional answer alone earns 0.5, a topic that was raised
but never answered earns 0. A topic never raised is skipped by default (the reference behaviour, §9.3-9);
`strict=True` scores it 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from steps.j1.eval.metrics.laws import law_name_key
from steps.j1.extract.statutes import find_statutes

BINARY = "binary"
Polarity = Literal["是", "否", "conditional"]

_CONDITIONAL = ("视情况", "不一定", "看情况", "取决于", "因情况而异", "有条件", "分情况", "视具体情况", "conditional")
_NONE = ("", "无", "未回答", "没有回答", "none")


@dataclass(frozen=True)
class TopicCheck:
    """One supervisor record: the exchange, the topic it addressed (index into the list, None for 无), the answer."""

    exchange: int
    topic_index: int | None
    answer: str


@dataclass(frozen=True)
class TopicScore:
    topic_index: int
    truth: str  # 是 or 否
    decided_by: str | None  # the summary that decided the score; None when never answered
    score: float | None  # None: never raised and skipped


@dataclass(frozen=True)
class BinaryAccuracy:
    """I-1 of one instance: the mean over its scored binary topics (None when none was scored)."""

    value: float | None
    topics: tuple[TopicScore, ...]
    n_binary: int
    n_reached: int


def polarity(summary: str) -> Polarity | None:
    """是, 否 or conditional for a summarised yes/no answer; None when it says nothing definite."""
    text = summary.strip().strip("。.！!，,；;“”\"' ").lower()
    if text in _NONE:
        return None
    if any(c in text for c in _CONDITIONAL):
        return "conditional"
    if text.startswith(("否", "不是", "不", "no")):
        return "否"
    if text.startswith(("是", "yes", "对", "可以")):
        return "是"
    return None


def binary_accuracy(
    topics: Sequence[Mapping[str, Any]], checks: Iterable[TopicCheck], *, strict: bool = False
) -> BinaryAccuracy:
    """I-1 from the topic list (`kind`, `answer` per topic, as in the instance ground truth) and the checks."""
    pooled: dict[int, list[TopicCheck]] = {}
    for check in sorted(checks, key=lambda c: c.exchange):
        if check.topic_index is not None:
            pooled.setdefault(check.topic_index, []).append(check)
    scored: list[TopicScore] = []
    for i, topic in enumerate(topics):
        if topic["kind"] != BINARY:
            continue
        truth = str(topic["answer"]).strip()
        if i not in pooled:
            scored.append(TopicScore(i, truth, None, 0.0 if strict else None))
            continue
        scored.append(_decide(i, truth, pooled[i]))
    values = [t.score for t in scored if t.score is not None]
    return BinaryAccuracy(
        value=sum(values) / len(values) if values else None,
        topics=tuple(scored),
        n_binary=len(scored),
        n_reached=sum(t.topic_index in pooled for t in scored),
    )


def _decide(index: int, truth: str, checks: list[TopicCheck]) -> TopicScore:
    answers = [(c.answer, polarity(c.answer)) for c in checks]
    definite = next(((a, p) for a, p in answers if p in ("是", "否")), None)
    if definite is not None:
        return TopicScore(index, truth, definite[0], 1.0 if definite[1] == polarity(truth) else 0.0)
    conditional = next((a for a, p in answers if p == "conditional"), None)
    if conditional is not None:
        return TopicScore(index, truth, conditional, 0.5)
    return TopicScore(index, truth, None, 0.0)


def topic_text(checks: Iterable[TopicCheck], replies: Mapping[int, str], topic_index: int) -> str:
    """The agent's replies in the exchanges mapped to a topic, joined in order (what I-2 scores)."""
    exchanges = sorted({c.exchange for c in checks if c.topic_index == topic_index})
    return "\n".join(replies[e] for e in exchanges if replies.get(e))


def statute_topic_score(answer: str, truth: Iterable[tuple[str, int]]) -> float:
    """I-2 for a topic whose answer is statute(s): 1 only if every (law, article) is cited (spec §5.4, §9.3-11).

    Citations are read with the extraction parser (款/项 dropped, Chinese or Arabic numerals); law names compare
    without title marks and without the 中华人民共和国 prefix.
    """
    wanted = {(law_name_key(law), article) for law, article in truth}
    if not wanted:
        raise ValueError("a statute topic needs at least one (law, article)")
    found, _ = find_statutes(answer)
    cited = {(law_name_key(s.law), s.article) for _, s in found}
    return 1.0 if wanted <= cited else 0.0


def non_binary_score(values: Sequence[float | None]) -> tuple[float | None, int]:
    """I-2 of one instance: the mean over its scored open topics, and how many were not scored (judge failures).

    Topics are interchangeable items, so a topic whose judge failed is left out and counted, never scored 0.
    """
    scored = [v for v in values if v is not None]
    return (sum(scored) / len(scored) if scored else None), len(values) - len(scored)

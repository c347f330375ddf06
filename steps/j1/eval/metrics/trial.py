"""A court transcript as exchanges, and UNI: whether a trial is valid at all (spec j1-envs §5.7, §9.3-14).

An exchange is the paper's turn: one utterance of the presiding judge and the reply it triggers (§2.1). A trial
is valid (UNI = 1) when it ends in a final judgment (本院认为 reasoning and rulings), lasts at least
`min_exchanges` exchanges (the reference code asks for 4), and is not a single-turn collapse. The paper calls a
collapse "unilateral speech that executes all stages within a single turn"; we read it as a judgment given
before any other participant has spoken, which needs no judge to detect.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from steps.j1.extract.sections import judgment_parts

JUDGE = "审判长"
MIN_EXCHANGES = 4


@dataclass(frozen=True)
class Utterance:
    speaker: str  # as the transcript names it: 审判长, 原告代理律师, 被告人, 公诉机关 …
    text: str


@dataclass(frozen=True)
class Exchange:
    index: int  # 1-based, shown to judges as 第x轮
    utterances: tuple[Utterance, ...]

    def said_by(self, speaker: str) -> str:
        return "\n".join(u.text for u in self.utterances if u.speaker == speaker)


def group_exchanges(rows: Iterable[tuple[int, str, str]]) -> list[Exchange]:
    """Exchanges from (exchange number, speaker, text) rows in transcript order; numbers are kept as given."""
    grouped: dict[int, list[Utterance]] = {}
    for number, speaker, text in rows:
        grouped.setdefault(number, []).append(Utterance(speaker, text))
    return [Exchange(n, tuple(u)) for n, u in grouped.items()]


class Invalid(StrEnum):
    NO_JUDGMENT = "no_judgment"  # no 本院认为 reasoning with rulings (the paper's "missing final objective")
    COLLAPSE = "single_turn_collapse"
    TOO_SHORT = "too_short"


@dataclass(frozen=True)
class TrialValidity:
    uni: int
    reason: Invalid | None
    judgment_exchange: int | None  # the exchange whose judge utterance first gives the judgment


def trial_validity(
    exchanges: list[Exchange], judgment: str | None, *, judge: str = JUDGE, min_exchanges: int = MIN_EXCHANGES
) -> TrialValidity:
    """UNI of one trial from its exchanges and its final judgment (the deliverable, None when absent)."""
    if not judgment or not judgment_parts(judgment).complete:
        return TrialValidity(0, Invalid.NO_JUDGMENT, None)
    at = next((e.index for e in exchanges if judgment_parts(e.said_by(judge)).complete), None)
    heard_before = any(
        u.speaker != judge and u.text.strip() for e in exchanges if at is None or e.index < at for u in e.utterances
    )
    if not heard_before:
        return TrialValidity(0, Invalid.COLLAPSE, at)
    if len(exchanges) < min_exchanges:
        return TrialValidity(0, Invalid.TOO_SHORT, at)
    return TrialValidity(1, None, at)

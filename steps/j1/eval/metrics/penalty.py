"""III-4 penalty deviation (lower is better): log distance of prison term and fine (spec j1-envs §5.10).

d = |ln(1 + ŷ) − ln(1 + y)| in months (SEN) and yuan (FINE); the paper gives no normaliser, we default to
d/(1+d) and offer min(d, 1) (§9.3-15: reports must say absolute values may differ from the paper's). The case
value is the mean of SEN and FINE. Edge cases (§9.3-16):
- the term is the executed principal term: the 决定执行 term under 数罪并罚, the term, not the probation, of a
  suspended sentence; 有期徒刑, 拘役 and 管制 count, any other penalty (fine only, exemption) is 0 months;
- a court sentence of life imprisonment or death has no term to compare: SEN is left out for that case and the
  exclusion is reported; a predicted life or death sentence against a term counts as 300 months, the longest
  fixed term (刑法第六十九条);
- an absent fine is 0 yuan on either side; inside a valid judgment an absent term is 0 months;
- a failed case (no judgment, or UNI = 0) scores the maximum, 1, on both.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from steps.j1.extract.model import DefendantVerdict
from steps.j1.extract.sections import judgment_parts
from steps.j1.extract.verdict import read_sentence

TERM_PENALTIES = ("有期徒刑", "拘役", "管制")
LIFE_OR_DEATH = ("无期徒刑", "死刑", "死刑缓期执行")
LONGEST_TERM_MONTHS = 300.0

NORMALISERS: dict[str, Callable[[float], float]] = {
    "ratio": lambda d: d / (1 + d),
    "clip": lambda d: min(d, 1.0),
}


@dataclass(frozen=True)
class Sentence:
    penalty: str | None  # principal penalty as the extraction parser names it (有期徒刑 … 无期徒刑 …)
    prison_months: float | None
    fine_yuan: float | None

    @classmethod
    def from_verdict(cls, verdict: DefendantVerdict) -> Sentence:
        return cls(verdict.penalty, verdict.prison_months, verdict.fine_yuan)

    @property
    def life_or_death(self) -> bool:
        return self.penalty in LIFE_OR_DEATH

    def months(self) -> float:
        """The executed principal term in months; life or death as the longest fixed term."""
        if self.life_or_death:
            return LONGEST_TERM_MONTHS
        return float(self.prison_months or 0.0) if self.penalty in TERM_PENALTIES else 0.0


def log_distance(predicted: float, truth: float) -> float:
    """|ln(1 + p) − ln(1 + t)| for non-negative amounts."""
    return abs(math.log1p(max(predicted, 0.0)) - math.log1p(max(truth, 0.0)))


@dataclass(frozen=True)
class PenaltyDeviation:
    value: float  # mean of the components that are scored
    sen: float | None  # None when the court's sentence is life or death
    fine: float
    sen_excluded: bool
    failed: bool
    predicted: Sentence | None
    truth: Sentence
    normaliser: str


def predicted_sentence(judgment: str, defendant: str | None = None) -> Sentence:
    """The sentence in the agent's rulings (the whole judgment when it has no rulings part); absent parts are 0."""
    rulings = judgment_parts(judgment).rulings or judgment
    verdict, _ = read_sentence(rulings, [defendant] if defendant else [])
    return Sentence.from_verdict(verdict) if verdict else Sentence(None, None, None)


def penalty_deviation(
    judgment: str | None,
    truth: Sentence,
    *,
    valid: bool = True,
    defendant: str | None = None,
    normaliser: str = "ratio",
) -> PenaltyDeviation:
    """III-4 of one case. `valid` is UNI: an invalid trial or a missing judgment is a failed case."""
    norm = NORMALISERS[normaliser]
    excluded = truth.life_or_death
    if not valid or not judgment:
        sen = None if excluded else 1.0
        return PenaltyDeviation(_mean(sen, 1.0), sen, 1.0, excluded, True, None, truth, normaliser)
    predicted = predicted_sentence(judgment, defendant)
    sen = None if excluded else norm(log_distance(predicted.months(), truth.months()))
    fine = norm(log_distance(predicted.fine_yuan or 0.0, truth.fine_yuan or 0.0))
    return PenaltyDeviation(_mean(sen, fine), sen, fine, excluded, False, predicted, truth, normaliser)


def _mean(sen: float | None, fine: float) -> float:
    return fine if sen is None else (sen + fine) / 2

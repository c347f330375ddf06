"""What every judge returns: a value, or a failure kind — never a silent zero (STYLE §8)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class JudgeFailure(StrEnum):
    CALL_FAILED = "call_failed"  # the model door gave up (rate limits, server errors, timeouts, filters)
    UNPARSABLE = "unparsable"  # no valid answer in the requested format after one repair round
    OUT_OF_RANGE = "out_of_range"  # well-formed, but a value outside its bounds (score 15, answer 也许)


@dataclass(frozen=True)
class Judgement:
    """One judged metric value.

    `value` is in [0, 1] and is None exactly when `failure` is set. `proxy` is True when a scripted model (the
    deterministic proxy judge) produced it. `evidence` holds what an auditor needs: the raw score and reason,
    per-item answers, stage labels. `raw` is the last answer text (joined per call when a judge makes several).
    """

    value: float | None
    failure: JudgeFailure | None
    raw: str
    prompt_version: str
    judge_model: str
    proxy: bool
    evidence: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    attempts: int = 0
    call_keys: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if (self.value is None) == (self.failure is None):
            raise ValueError("a judgement has either a value or a failure, never both or neither")
        if self.value is not None and not 0.0 <= self.value <= 1.0:
            raise ValueError(f"a judged value lies in [0, 1], got {self.value}")

    @property
    def ok(self) -> bool:
        return self.failure is None

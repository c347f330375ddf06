"""What every judge returns: a value, or a failure kind — never a silent zero (STYLE §8).

A `Judgement` is made in one place: `JudgedBy` (the judge model, whether it is the proxy judge, the prompt
version) turns the calls a judge made into one (`judgement`, `scored`, `failed`), and gives the judged-row
columns every judged table shares (`row`; `Judgement.row` for a judgement; `steps.schemas.judged.Judged`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from steps.llm import ModelConfig


class JudgeFailure(StrEnum):
    CALL_FAILED = "call_failed"  # the model door gave up (rate limits, server errors, timeouts, filters)
    UNPARSABLE = "unparsable"  # no valid answer in the requested format after one repair round
    OUT_OF_RANGE = "out_of_range"  # well-formed, but a value outside its bounds (score 15, answer 也许)


class JudgeCall(Protocol):
    """One question a judge asked (`steps.judges.asking.Asked`, one order of a pairwise verdict)."""

    @property
    def failure(self) -> JudgeFailure | None: ...
    @property
    def error(self) -> str: ...
    @property
    def raw(self) -> str: ...
    @property
    def attempts(self) -> int: ...
    @property
    def call_keys(self) -> tuple[str, ...]: ...
    @property
    def truncated(self) -> bool: ...


@dataclass(frozen=True)
class Judgement:
    """One judged metric value.

    `value` is in [0, 1] and is None exactly when `failure` is set. `proxy` is True when a scripted model (the
    deterministic proxy judge) produced it. `evidence` holds what an auditor needs: the raw score and reason,
    per-item answers, stage labels. `raw` is the last answer text (joined per call when a judge makes several).
    Made by `JudgedBy`.
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
    truncated: bool = False  # an answer it read was cut at max_tokens (finish_reason length)

    def __post_init__(self) -> None:
        if (self.value is None) == (self.failure is None):
            raise ValueError("a judgement has either a value or a failure, never both or neither")
        if self.value is not None and not 0.0 <= self.value <= 1.0:
            raise ValueError(f"a judged value lies in [0, 1], got {self.value}")

    @property
    def ok(self) -> bool:
        return self.failure is None

    def row(self) -> dict[str, Any]:
        """The judged-row columns (`steps.schemas.judged.Judged`) of this judgement."""
        by = JudgedBy(self.judge_model, self.proxy, self.prompt_version)
        failure = self.failure.value if self.failure else None
        return by.row(self.value, failure, self.error, self.attempts, truncated=self.truncated)


@dataclass(frozen=True)
class JudgedBy:
    """Who produced a judged value: the judge model (`rule` for a rule, "" for nobody), whether it is the
    proxy judge (a scripted model), and the version of the prompt it was asked with."""

    model: str = ""
    proxy: bool = False
    prompt_version: str = ""

    @classmethod
    def of(cls, model: ModelConfig, prompt_version: str) -> JudgedBy:
        return cls(model.model, model.is_scripted, prompt_version)

    def judgement(
        self, value: float | None, calls: Sequence[JudgeCall], evidence: dict[str, Any] | None = None
    ) -> Judgement:
        """`value` from `calls`, or the failure of the first call that failed (its kind and error); the calls'
        answers (joined by a blank line), attempts and call keys are kept either way."""
        failed = next((c for c in calls if c.failure is not None), None)
        return Judgement(
            value=None if failed else value,
            failure=failed.failure if failed else None,
            raw="\n\n".join(c.raw for c in calls),
            prompt_version=self.prompt_version,
            judge_model=self.model,
            proxy=self.proxy,
            evidence=dict(evidence or {}),
            error=failed.error if failed else "",
            attempts=sum(c.attempts for c in calls),
            call_keys=tuple(k for c in calls for k in c.call_keys),
            truncated=any(c.truncated for c in calls),
        )

    def scored(self, value: float, evidence: dict[str, Any] | None = None) -> Judgement:
        """A value given without asking (e.g. the rule value of an invalid trial)."""
        return self.judgement(value, (), evidence)

    def row(
        self,
        value: float | None = None,
        failure: str | None = None,
        error: str = "",
        attempts: int = 0,
        *,
        truncated: bool = False,
    ) -> dict[str, Any]:
        """The judged-row columns of a row no judgement produced (a rule value, an excluded item)."""
        return {
            "judge": self.model,
            "judge_prompt_version": self.prompt_version,
            "judge_proxy": self.proxy,
            "value": value,
            "failure": failure,
            "error": error,
            "attempts": attempts,
            "truncated": truncated,
        }


RULE = JudgedBy("rule")  # a value computed by rule
NOBODY = JudgedBy()  # nothing was judged (e.g. the agent's call failed)

"""Score rows: one (instance, metric, component) value with its status, who produced it and the evidence; the
judged-row columns come from `steps.judges.result` (`Judgement.row`)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from steps.judges.result import RULE, Judgement


@dataclass(frozen=True)
class ScoreRow:
    """One row of scores.parquet before the run's identity is added (see `steps.schemas.J1Scores`)."""

    instance_id: str
    scenario: str
    metric: str
    component: str = ""
    value: float | None = None
    status: str = "scored"
    failure: str | None = None
    error: str = ""
    judge: str = RULE.model
    judge_prompt_version: str = ""
    judge_proxy: bool = False
    attempts: int = 0
    truncated: bool = False  # an answer the judge gave was cut at max_tokens
    evidence: dict[str, Any] = field(default_factory=dict)

    def record(self) -> dict[str, Any]:
        out = asdict(self)
        out["evidence"] = json.dumps(self.evidence, ensure_ascii=False, sort_keys=True, default=str)
        return out


@dataclass(frozen=True)
class Row:
    """A factory for one instance's rows: the instance and scenario said once."""

    instance_id: str
    scenario: str

    def rule(self, metric: str, value: float, component: str = "", **evidence: Any) -> ScoreRow:
        """A value computed by rule."""
        return ScoreRow(self.instance_id, self.scenario, metric, component, float(value), evidence=evidence)

    def failed_task(self, metric: str, value: float, component: str = "", **evidence: Any) -> ScoreRow:
        """The paper's value for a task the agent failed ("-" in its tables: 0, or 1 for III-4)."""
        return ScoreRow(
            self.instance_id, self.scenario, metric, component, float(value), "failed_task", evidence=evidence
        )

    def skipped(self, metric: str, component: str = "", **evidence: Any) -> ScoreRow:
        """Nothing to compare: left out of the mean and counted."""
        return ScoreRow(self.instance_id, self.scenario, metric, component, None, "skipped", evidence=evidence)

    def dialogue_failed(self, metric: str, failure: str, component: str = "") -> ScoreRow:
        return ScoreRow(self.instance_id, self.scenario, metric, component, None, "dialogue_failed", failure)

    def judged(self, metric: str, judgement: Judgement, component: str = "", **evidence: Any) -> ScoreRow:
        """A judge's value, or its failure (never a 0)."""
        return ScoreRow(
            self.instance_id,
            self.scenario,
            metric,
            component,
            status="scored" if judgement.ok else "judge_failed",
            evidence={**evidence, **judgement.evidence},
            **judgement.row(),
        )

    def combined(self, metric: str, parts: list[ScoreRow], *, drop_failed: bool = False, **evidence: Any) -> ScoreRow:
        """The mean of the `parts` that have a value.

        Skipped parts are left out (nothing to compare); with no part left the result is skipped. A judge
        failure among the parts makes the whole a judge failure, unless `drop_failed` (interchangeable items
        such as I-2's topics): then failed parts are left out and counted in the evidence. A result made only
        of failed-task parts is failed_task; the judge and proxy flag are those of the first judged part.
        """
        judged = next((p for p in parts if p.judge != RULE.model), None)
        n_failed = sum(p.status == "judge_failed" for p in parts)
        base = ScoreRow(
            self.instance_id,
            self.scenario,
            metric,
            truncated=any(p.truncated for p in parts),
            evidence={**evidence, "judge_failed_parts": n_failed},
        )
        if judged is not None:
            base = replace(
                base,
                judge=judged.judge,
                judge_prompt_version=judged.judge_prompt_version,
                judge_proxy=judged.judge_proxy,
            )
        failed = next((p for p in parts if p.status == "judge_failed"), None)
        valued = [p for p in parts if p.value is not None]
        if failed is not None and not (drop_failed and valued):
            return replace(
                base,
                status="judge_failed",
                failure=failed.failure,
                error=f"{failed.component or failed.metric}: {failed.error}",
            )
        if not valued:
            return replace(base, status="skipped")
        status = "failed_task" if all(p.status == "failed_task" for p in valued) else "scored"
        values = [p.value for p in valued if p.value is not None]
        return replace(base, value=sum(values) / len(values), status=status)

"""What one instance's evaluation reads (`Case`), the scoring options, and the judges it may ask (`Panel`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from steps.j1.eval.courts import Court
from steps.j1.eval.metrics.trial import Exchange, TrialValidity
from steps.j1.eval.procedure import ProcedureScore, judge_procedure
from steps.j1.params import J1ProcedureParams
from steps.judges.pointwise import Comparison, judge_pointwise
from steps.judges.result import Judgement
from steps.llm import Completer, ModelConfig


@dataclass(frozen=True)
class Case:
    """One instance of a run: its typed ground truth, its turn rows in order and its deliverable row."""

    instance_id: str
    scenario: str
    truth: Any  # the scenario's ground-truth model (steps.j1.envs.common.profiles)
    turns: list[dict[str, Any]]
    deliverable: dict[str, Any]
    agent_role: str  # the role the agent under test plays (agent, lawyer, judge)

    def utterances(self) -> list[dict[str, Any]]:
        """Speech rows (no checks, drafts or failed calls), in transcript order."""
        return [t for t in self.turns if t["kind"] == "utterance" and not t.get("failure")]

    @property
    def document(self) -> str | None:
        text = self.deliverable.get("deliverable")
        return text if isinstance(text, str) and text.strip() else None

    def broken_by(self) -> str | None:
        """Why the dialogue broke outside the agent's control: a failed model call, or an environment role that
        went silent; None when it ran its course (or the agent itself stopped: `agent_stopped`)."""
        if self.deliverable["ended_by"] == "call_failed":
            return f"call_failed: {self.deliverable.get('failure') or 'model call failed'}"
        if self.deliverable["ended_by"] == "empty_reply" and not self.agent_went_silent():
            return f"empty_reply: the {self._silent_speaker() or 'environment'} said nothing"
        return None

    def agent_went_silent(self) -> bool:
        return self.deliverable["ended_by"] == "empty_reply" and self._silent_speaker() == self.agent_role

    def agent_stopped(self) -> str | None:
        """Why the agent itself ended the dialogue early: it went silent, or its history outgrew its context
        (`context_exceeded`: the model's limit, as much its own as silence); None when it did not."""
        if self.agent_went_silent():
            return "the agent went silent"
        if self.deliverable["ended_by"] == "context_exceeded":
            return "the agent's context was full"
        return None

    def _silent_speaker(self) -> str | None:
        said = [t for t in self.turns if t["kind"] == "utterance" and not t.get("failure")]
        return next((t["speaker"] for t in reversed(said) if not t["text"]), None)


@dataclass(frozen=True)
class Panel:
    """The judge model behind the door, and the procedure judge's windowing."""

    door: Completer
    model: ModelConfig
    procedure_config: J1ProcedureParams = field(default_factory=J1ProcedureParams)

    async def compare(self, comparison: Comparison, *, metric: str) -> Judgement:
        return await judge_pointwise(self.door, self.model, comparison, metadata={"metric": metric})

    async def procedure(self, court: Court, exchanges: list[Exchange], validity: TrialValidity) -> ProcedureScore:
        config, meta = self.procedure_config, {"metric": "III-1"}
        return await judge_procedure(self.door, self.model, court, exchanges, validity, config=config, metadata=meta)

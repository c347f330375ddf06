"""Section `plawbench` of params.yaml (stages `plawbench_*`): sample size, prompt layout, consultation question
counts, judge repairs, the multi-turn variant, and the paper's name for agents whose alias or model string does
not match it."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from steps.plawbench.protocol import PAPER
from steps.protocol import JudgeSetting, PaperProtocol, RoleEntry
from steps.sections import BenchmarkSection, JudgeProbeParams, Section, check_subset


class PlawMultiturnParams(Section):
    """Ours, not the paper's: the consultation task as a dialogue with a simulated client."""

    enabled: bool = True
    max_turns: int = Field(default=10, ge=1, le=50)


class PlawBenchParams(BenchmarkSection):
    PAPER: ClassVar[PaperProtocol] = PAPER
    ROLES: ClassVar[tuple[str, ...]] = ("environment", "judge")  # environment: the multi-turn variant's client

    environment: RoleEntry | None = None  # over the global environment (the paper has no such role)
    judge: JudgeSetting = None  # over the paper's judge (protocol: paper) or the global one
    limit: int | None = Field(default=None, ge=1)  # tasks per scenario (15 scenarios); None: all 280
    scenarios: list[str] | None = None  # scenarios to run (e.g. [consultation, plaintiff]); None: all 15

    @field_validator("scenarios")
    @classmethod
    def _distinct(cls, value: list[str] | None) -> list[str] | None:
        return check_subset(value)

    split_system: bool = False  # instructions as a system message (default: one user message, as the repo)
    min_questions: int = Field(default=10, ge=1)  # consultation, level mid (spec §5.1, §6.6)
    max_questions: int = Field(default=25, ge=1)  # only the first N questions are judged (level mid)
    judge_repairs: int = Field(default=2, ge=0, le=5)  # re-asks after an invalid judge answer
    # points: the judge gives each award item points in [0, its points], with a reason and an error label (the
    # paper's way); flags: only met or not per item (full points or 0), no free text: a verdict about a third as
    # long, which a small judge with a low max_tokens can finish (the smoke profile's), and coarser scores
    judge_verdict: Literal["points", "flags"] = "points"
    judge_probes: JudgeProbeParams = JudgeProbeParams()  # the judge audit's re-judgements and shuffled rubrics
    multiturn: PlawMultiturnParams = PlawMultiturnParams()
    paper_names: dict[str, str] = Field(default_factory=dict)  # agent -> model name in the paper's Table 3
    t1_penalties: Literal["none", "paper"] = "none"  # paper: also apply Table 8's T1 penalties (ours, reported apart)

    @model_validator(mode="after")
    def _question_bounds(self) -> PlawBenchParams:
        if self.min_questions > self.max_questions:
            raise ValueError("plawbench.min_questions must not exceed plawbench.max_questions")
        return self

    def shared_limit(self) -> int | None:
        return self.limit

    def prompt_options(self) -> dict[str, bool | int]:
        """What shapes a prompt (part of the run id of predictions): the layout and the question counts."""
        return self.model_dump(include={"split_system", "min_questions", "max_questions"})


SECTION = PlawBenchParams

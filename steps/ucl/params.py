"""Section `ucl` of params.yaml (stages `ucl_reference`, `ucl_simulate`, `ucl_judge`, `ucl_report`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from pydantic import Field, field_validator

from steps.llm.config import ModelConfig, ModelEntry, check_safe_name
from steps.protocol import JudgeSetting, PaperProtocol, RoleEntry
from steps.sections import BenchmarkSection, JudgeProbeParams, check_subset
from steps.ucl.prompts import RELEASED, PromptSource
from steps.ucl.protocol import PAPER, REFERENCE_NAME

if TYPE_CHECKING:
    from steps.params import Params


class UclReference(ModelEntry):
    """The model whose dialogues every UCL agent is compared with, and the name the reports give it."""

    name: str = "reference"

    @field_validator("name")
    @classmethod
    def _safe_name(cls, value: str) -> str:
        return check_safe_name(value)

    def resolve_reference(self) -> ModelConfig:
        return ModelConfig(**self.model_dump(exclude={"paper_model"}))


DEFAULT_REFERENCE = UclReference(name="scripted_null", model="scripted/null")


class UclParams(BenchmarkSection):
    """The reference model, the exchange cap (the paper's 3), the single-round variant, items per task (None:
    all 10 public items), judge repair rounds, the pointwise mode [ours] and the prompts the user and the pairwise
    judge read (`released`: the task's templates in legal_prompt.json; `ours`: our Jinja templates)."""

    PAPER: ClassVar[PaperProtocol] = PAPER
    ROLES: ClassVar[tuple[str, ...]] = ("environment", "judge", "reference")

    environment: RoleEntry | None = None  # over the paper's (protocol: paper) or the global environment
    judge: JudgeSetting = None
    reference: UclReference = DEFAULT_REFERENCE  # named here: replaces the paper's under protocol: paper
    max_exchanges: int = Field(default=3, ge=1, le=20)
    single_round: bool = False
    limit: int | None = Field(default=None, ge=1)
    tasks: list[str] | None = None  # task names to run (e.g. [Charge Prediction]); None: all 23
    judge_retries: int = Field(default=2, ge=0, le=5)
    pointwise: bool = True
    judge_probes: JudgeProbeParams = JudgeProbeParams()  # the judge audit's probes of the hint judge (pointwise)
    prompts: PromptSource = RELEASED

    @field_validator("tasks")
    @classmethod
    def _known_tasks(cls, value: list[str] | None) -> list[str] | None:
        return check_subset(value)

    def exchanges(self) -> int:
        """The effective cap: 1 in the single-round variant."""
        return 1 if self.single_round else self.max_exchanges

    def shared_limit(self) -> int | None:
        return self.limit

    def own_role(self, role: str) -> RoleEntry | None:
        if role == "reference":  # named in params.yaml: it replaces the paper's reference (and the default)
            if "reference" not in self.model_fields_set:
                return None
            return RoleEntry(**self.reference.model_dump(exclude={"name", "paper_model"}))
        return super().own_role(role)

    def role_default(self, role: str) -> ModelEntry | None:
        if role != "reference":
            return None
        return ModelEntry(**DEFAULT_REFERENCE.model_dump(exclude={"name"}))

    def reference_name(self) -> str:
        """The reference's name in the reports: the one params.yaml gives, else the paper's under `protocol:
        paper`, else the default's."""
        if "reference" in self.model_fields_set or self.protocol != "paper":
            return self.reference.name
        return REFERENCE_NAME

    def check_agents(self, agents: Sequence[str]) -> None:
        if self.reference_name() in agents:
            raise ValueError(f"reference.name '{self.reference_name()}' is also an agent name; give it its own")


SECTION = UclParams


def reference_model(params: Params) -> ModelConfig:
    """The model in the agent's seat of stage `ucl_reference` (its flow run is tagged with it)."""
    ucl = params.section(UclParams)
    return params.role_model("ucl", "reference").model_copy(update={"name": ucl.reference_name()})

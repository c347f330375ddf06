"""Section `lawbench` of params.yaml (stages `lawbench_predict`): items per task sent to each agent (None: all
500; a smaller number for a quick smoke run, whose scores are then not comparable with the paper's) and the
tasks to run."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, field_validator

from steps.lawbench.protocol import PAPER
from steps.protocol import PaperProtocol
from steps.sections import BenchmarkSection, check_subset


class LawBenchParams(BenchmarkSection):
    PAPER: ClassVar[PaperProtocol] = PAPER

    limit: int | None = Field(default=None, ge=1, le=500)
    tasks: list[str] | None = None  # task ids to run (e.g. [1-1, 3-1]); None: all 20

    @field_validator("tasks")
    @classmethod
    def _known_tasks(cls, value: list[str] | None) -> list[str] | None:
        return check_subset(value)

    def shared_limit(self) -> int | None:
        return self.limit


SECTION = LawBenchParams

"""Court procedures as data (`courts.yaml`): stages in order, their descriptions and yes/no checklists."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

COURTS_FILE = Path(__file__).with_name("courts.yaml")


@dataclass(frozen=True)
class ChecklistItem:
    id: str
    stage: str
    question: str
    cues: tuple[str, ...]  # proxy judge only


@dataclass(frozen=True)
class Stage:
    key: str
    name: str
    description: str
    cues: tuple[str, ...]  # proxy judge only
    checklist: tuple[ChecklistItem, ...]


@dataclass(frozen=True)
class Court:
    key: str  # civil | criminal
    name: str
    judge: str  # how the transcript names the presiding judge
    stages: tuple[Stage, ...]

    @property
    def items(self) -> tuple[ChecklistItem, ...]:
        return tuple(item for stage in self.stages for item in stage.checklist)

    def stage(self, key: str) -> Stage:
        return next(s for s in self.stages if s.key == key)

    def as_data(self) -> dict:
        """What the prompts show of this court (no cues), for prompt versions."""
        return {
            "stages": [
                {"key": s.key, "name": s.name, "description": s.description, "items": [i.question for i in s.checklist]}
                for s in self.stages
            ]
        }


def _court(key: str, raw: dict) -> Court:
    stages = tuple(
        Stage(
            s["key"],
            s["name"],
            "".join(s["description"].split()),  # YAML folds lines with spaces; Chinese needs none
            tuple(s["cues"]),
            tuple(ChecklistItem(i["id"], s["key"], i["question"], tuple(i["cues"])) for i in s["checklist"]),
        )
        for s in raw["stages"]
    )
    return Court(key, raw["name"], raw["judge"], stages)


@cache
def courts() -> dict[str, Court]:
    raw = yaml.safe_load(COURTS_FILE.read_text(encoding="utf-8"))
    return {key: _court(key, value) for key, value in raw.items()}


def court(key: str) -> Court:
    """The civil or criminal procedure."""
    return courts()[key]

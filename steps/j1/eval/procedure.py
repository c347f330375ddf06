"""Two-pass court procedure judge for III-1 (spec j1-envs §5.7, §6.3-e/f, §9.3-14).

Pass 1 labels every exchange of the transcript with one stage, a window of exchanges per call with the
exchanges before it as context. Pass 2 gives each stage's exchanges, with the whole checklist, to the judge,
which answers every item under five principles (stage matching, semantic completion, first action per turn,
negative default, no keyword triggering); an item counts only in its own stage's unit, and a stage that no
exchange reached answers No throughout. Then, per trial:

    ACT = items answered Yes / items;  STA = stages with every item Yes / stages;
    III-1 = UNI × (STA + ACT) / 2

UNI is the rule of `steps.j1.eval.metrics.trial` (final judgment, enough exchanges, no single-turn collapse); an
invalid trial scores 0 without judge calls, and its STA and ACT are reported as 0 too, so that III-1 is the
mean of the reported STA and ACT as in the paper's tables. Any judge call that fails makes III-1 a failure.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, field_validator, model_validator
from pydantic_core import PydanticCustomError

from steps.j1.eval.courts import Court
from steps.j1.eval.metrics.trial import Exchange, TrialValidity, Utterance
from steps.j1.params import J1ProcedureParams
from steps.judges.asking import Asked, ask_json
from steps.judges.prompts import render, template_source, version
from steps.judges.result import JudgedBy, Judgement
from steps.llm import Completer, ModelConfig
from steps.llm.capabilities import TEXT, obj, one_each

TEMPLATES = Path(__file__).parent / "templates" / "judge"  # stages.j2, checklist.j2
KIND = "procedure"
DEFAULT_PROCEDURE = J1ProcedureParams()


class StageLabel(BaseModel):
    model_config = ConfigDict(extra="ignore")
    turn: str | int
    court_stage: str
    reason: str = ""


class StageLabels(BaseModel):
    result: list[StageLabel]


class ItemAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str
    answer: Literal["是", "否"]
    reason: str = ""

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, value: Any) -> str:
        return str(value).strip().rstrip(".．、").upper()

    @field_validator("answer", mode="before")
    @classmethod
    def _answer(cls, value: Any) -> Any:
        text = str(value).strip().strip("。.").lower()
        return {"yes": "是", "no": "否", "是的": "是", "不是": "否"}.get(text, text)


class ChecklistAnswers(BaseModel):
    result: list[ItemAnswer]


def turn_number(turn: str | int) -> int | None:
    digits = re.search(r"\d+", str(turn))
    return int(digits.group(0)) if digits else None


@cache
def labels_schema(stages: tuple[str, ...], turns: tuple[int, ...]) -> type[StageLabels]:
    """The pass-1 answer for one window: a known stage for each of exactly these turns."""

    class WindowLabels(StageLabels):
        @model_validator(mode="after")
        def _complete(self) -> WindowLabels:
            unknown = sorted({x.court_stage for x in self.result} - set(stages))
            if unknown:
                raise PydanticCustomError("out_of_range", "unknown stage {unknown}", {"unknown": ", ".join(unknown)})
            numbers = [turn_number(x.turn) for x in self.result]
            got = sorted(n for n in numbers if n is not None)
            if got != sorted(turns) or None in numbers:  # a label without a turn number labels no turn
                raise PydanticCustomError(
                    "incomplete",
                    "label each turn exactly once: expected {expected}, got {got}",
                    {"expected": list(turns), "got": got},
                )
            return self

        @classmethod
        def wire_schema(cls) -> dict[str, Any]:
            """A known stage for each turn of the window, in order (constrained output)."""
            lines = [
                obj(
                    {"turn": {"const": t}, "court_stage": {"enum": list(stages)}, "reason": TEXT},
                    ["turn", "court_stage"],
                )
                for t in turns
            ]
            return obj({"result": one_each(lines)})

    return WindowLabels


@cache
def checklist_schema(ids: tuple[str, ...]) -> type[ChecklistAnswers]:
    """The pass-2 answer for one unit: 是 or 否 for each item of the checklist, once."""

    class UnitAnswers(ChecklistAnswers):
        @model_validator(mode="after")
        def _complete(self) -> UnitAnswers:
            got = [x.id for x in self.result]
            unknown = sorted(set(got) - set(ids))
            if unknown:
                raise PydanticCustomError("out_of_range", "unknown item {unknown}", {"unknown": ", ".join(unknown)})
            if sorted(got) != sorted(ids):
                missing = sorted(set(ids) - set(got))
                raise PydanticCustomError(
                    "incomplete", "answer each item exactly once; missing {missing}", {"missing": ", ".join(missing)}
                )
            return self

        @classmethod
        def wire_schema(cls) -> dict[str, Any]:
            """是 or 否 for each checklist item, in order (constrained output)."""
            lines = [
                obj({"id": {"const": i}, "answer": {"enum": ["是", "否"]}, "reason": TEXT}, ["id", "answer"])
                for i in ids
            ]
            return obj({"result": one_each(lines)})

    return UnitAnswers


T = TypeVar("T", bound=BaseModel)


def _values(calls: Sequence[Asked[T]]) -> list[T]:
    """The answers of calls none of which failed (`_Record.failure` found none)."""
    return [c.value for c in calls if c.value is not None]


@dataclass(frozen=True)
class ProcedureScore:
    """III-1 and its components for one trial; `judgement.value` is III-1 (None on a judge failure)."""

    judgement: Judgement
    sta: float | None
    act: float | None
    uni: int
    labels: dict[int, str] = field(default_factory=dict)  # exchange -> stage
    answers: dict[str, bool] = field(default_factory=dict)  # item id -> Yes


def procedure_version(court: Court) -> str:
    return version(
        f"{KIND}.{court.key}",
        template_source("stages.j2", TEMPLATES) + template_source("checklist.j2", TEMPLATES),
        court.as_data(),
    )


def _cut(exchange: Exchange, limit: int) -> Exchange:
    short = tuple(
        Utterance(u.speaker, u.text if len(u.text) <= limit else u.text[:limit] + "……") for u in exchange.utterances
    )
    return Exchange(exchange.index, short)


def labels_prompt(
    court: Court, window: Sequence[Exchange], context: Sequence[Exchange], config: J1ProcedureParams
) -> str:
    return render(
        "stages.j2",
        {
            "court_name": court.name,
            "stages": court.stages,
            "context": [_cut(e, config.context_chars) for e in context],
            "turns": list(window),
        },
        folder=TEMPLATES,
    )


def checklist_prompt(court: Court, stage: str, unit: Sequence[Exchange]) -> str:
    return render(
        "checklist.j2",
        {"court_name": court.name, "stage": court.stage(stage), "stages": court.stages, "turns": list(unit)},
        folder=TEMPLATES,
    )


def _proxy_turns(court: Court, exchanges: Sequence[Exchange]) -> list[dict[str, Any]]:
    return [{"turn": e.index, "judge": e.said_by(court.judge)} for e in exchanges]


async def _label(
    door: Completer,
    model: ModelConfig,
    court: Court,
    exchanges: Sequence[Exchange],
    config: J1ProcedureParams,
    meta: dict[str, Any],
) -> list[Asked[StageLabels]]:
    """Pass 1: one call per window of exchanges, the exchanges before it as context."""
    stage_keys = tuple(s.key for s in court.stages)

    def ask(i: int) -> Coroutine[Any, Any, Asked[StageLabels]]:
        window, context = exchanges[i : i + config.window], exchanges[max(0, i - config.context) : i]
        proxy = {
            "judge_kind": "stages",
            "turns": _proxy_turns(court, window),
            "context": _proxy_turns(court, exchanges[:i]),
        }
        return ask_json(
            door,
            model,
            labels_prompt(court, window, context, config),
            labels_schema(stage_keys, tuple(e.index for e in window)),
            metadata={**meta, **proxy},
        )

    return list(await asyncio.gather(*(ask(i) for i in range(0, len(exchanges), config.window))))


async def _check(
    door: Completer, model: ModelConfig, court: Court, units: dict[str, list[Exchange]], meta: dict[str, Any]
) -> list[Asked[ChecklistAnswers]]:
    """Pass 2: the whole checklist for each stage's exchanges."""
    ids = tuple(item.id for item in court.items)
    return list(
        await asyncio.gather(
            *(
                ask_json(
                    door,
                    model,
                    checklist_prompt(court, stage, unit),
                    checklist_schema(ids),
                    metadata={**meta, "judge_kind": "checklist", "stage": stage, "turns": _proxy_turns(court, unit)},
                )
                for stage, unit in units.items()
            )
        )
    )


def _scores(court: Court, by_stage: dict[str, dict[str, ItemAnswer]]) -> tuple[dict[str, bool], float, float]:
    """Item answers counted only in their own stage's unit; ACT and STA."""
    answers = {i.id: i.stage in by_stage and by_stage[i.stage][i.id].answer == "是" for i in court.items}
    act = sum(answers.values()) / len(answers)
    sta = sum(all(answers[i.id] for i in s.checklist) for s in court.stages) / len(court.stages)
    return answers, sta, act


async def judge_procedure(
    door: Completer,
    model: ModelConfig,
    court: Court,
    exchanges: Sequence[Exchange],
    validity: TrialValidity,
    *,
    config: J1ProcedureParams = DEFAULT_PROCEDURE,
    metadata: dict[str, Any] | None = None,
) -> ProcedureScore:
    """III-1 of one trial: stage labels (pass 1), checklist per stage (pass 2), then STA, ACT and UNI."""
    by = JudgedBy.of(model, procedure_version(court))
    if not validity.uni:
        evidence = {"uni": 0, "invalid": str(validity.reason), "sta": 0.0, "act": 0.0}
        return ProcedureScore(by.scored(0.0, evidence), 0.0, 0.0, 0)
    meta = {**(metadata or {}), "court": court.key}
    pass1 = await _label(door, model, court, exchanges, config, meta)
    if failed := _failed(by, pass1):
        return failed
    labels = {
        n: x.court_stage for window in _values(pass1) for x in window.result if (n := turn_number(x.turn)) is not None
    }
    units = {s.key: [e for e in exchanges if labels[e.index] == s.key] for s in court.stages}
    units = {stage: unit for stage, unit in units.items() if unit}
    pass2 = await _check(door, model, court, units, meta)
    if failed := _failed(by, [*pass1, *pass2]):
        return failed
    by_stage = {stage: {x.id: x for x in unit.result} for stage, unit in zip(units, _values(pass2), strict=True)}
    answers, sta, act = _scores(court, by_stage)
    items = {
        i.id: {
            "stage": i.stage,
            "yes": answers[i.id],
            "reason": by_stage[i.stage][i.id].reason if i.stage in by_stage else "",
        }
        for i in court.items
    }
    evidence = {"uni": 1, "sta": sta, "act": act, "labels": {str(k): v for k, v in labels.items()}, "items": items}
    judgement = by.judgement((sta + act) / 2, [*pass1, *pass2], evidence)
    return ProcedureScore(judgement, sta, act, 1, labels, answers)


def _failed(by: JudgedBy, calls: Sequence[Asked]) -> ProcedureScore | None:
    """The trial's failure when one of `calls` failed (its kind and error are the first failed call's)."""
    n_failed = sum(c.failure is not None for c in calls)
    return ProcedureScore(by.judgement(None, calls, {"failed_calls": n_failed}), None, None, 1) if n_failed else None

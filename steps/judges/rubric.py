"""Rubric judge: one call scores a response against a rubric item by item (PLawBench style).

The judge sees the rubric as data (`Rubric`: award items in groups, fail conditions, penalties) and answers
JSON with, per award item, the points it awards and a one-line justification (and, optionally, an error
label); per fail condition whether it happened; per penalty how often. Every answer is bounded: points
outside [0, the item's points], a count above its bound or a label outside the list is out of range, a
missing or unknown id makes the answer incomplete; such an answer is shown its error and asked again
(`repairs` times), then recorded as a failure (`out_of_range`, `unparsable`), never scored 0. The code adds
up (`rubric_tally.tally`): fails zero their target, groups are clamped to their maxima, penalties come off
the total, and the value is total / maximum. Callers may pass their own template source.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from steps.judges.asking import ask_json
from steps.judges.prompts import render, template_source, version
from steps.judges.result import JudgedBy, Judgement
from steps.judges.rubric_tally import Answer, ItemKind, Rubric, RubricGroup, RubricItem, tally
from steps.llm import Completer, ModelConfig
from steps.llm.capabilities import TEXT, obj, one_each

KIND = "rubric"
TEMPLATE = "rubric.j2"
FLAGS_TEMPLATE = "rubric_flags.j2"  # the compact verdict's (`Rubric.verdict == "flags"`)
MAX_COUNT = 100  # the bound of a penalty without a stated bound

__all__ = ["ItemKind", "Rubric", "RubricGroup", "RubricItem", "judge_rubric", "rubric_prompt", "rubric_version"]


class _Line(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str
    justification: str = ""

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, value: Any) -> str:
        return str(value).strip().strip("[]【】").rstrip(".．、")

    @field_validator("justification", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        return "" if value is None else str(value)


class AwardLine(_Line):
    awarded: float = Field(allow_inf_nan=False)
    error: str | None = None


class FlagLine(_Line):
    """An award item in the compact verdict (`Rubric.verdict == "flags"`): met in full or not at all."""

    met: bool


class FailLine(_Line):
    triggered: bool


class PenaltyLine(_Line):
    times: int = Field(ge=0)


class RubricAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    items: list[AwardLine]
    fails: list[FailLine] = Field(default_factory=list)
    penalties: list[PenaltyLine] = Field(default_factory=list)


class RubricFlagsAnswer(BaseModel):
    """The compact verdict: per award item only whether it is met, per fail and penalty only the flag or count
    (no justification, no error label): about a third of the tokens of `RubricAnswer`, and every value is a
    boolean or a bounded integer, which a grammar (llama.cpp) can enforce."""

    model_config = ConfigDict(extra="ignore")
    items: list[FlagLine]
    fails: list[FailLine] = Field(default_factory=list)
    penalties: list[PenaltyLine] = Field(default_factory=list)


@cache
def rubric_flags_schema(
    awards: tuple[str, ...], fails: tuple[str, ...], penalties: tuple[tuple[str, int], ...]
) -> type[RubricFlagsAnswer]:
    """The compact answer schema of one rubric: every id exactly once, a met flag per award item."""

    class CheckedFlags(RubricFlagsAnswer):
        @model_validator(mode="after")
        def _complete_and_bounded(self) -> CheckedFlags:
            _same_ids("items", [a.id for a in self.items], list(awards))
            _same_ids("fails", [f.id for f in self.fails], list(fails))
            _same_ids("penalties", [p.id for p in self.penalties], [i for i, _ in penalties])
            bounds = dict(penalties)
            bad = [f"{p.id}: {p.times} times, at most {bounds[p.id]}" for p in self.penalties if p.times > bounds[p.id]]
            if bad:
                raise PydanticCustomError("out_of_range", "values out of range: {bad}", {"bad": "; ".join(bad)})
            return self

        @classmethod
        def wire_schema(cls) -> dict[str, Any]:
            """Every id once, in the rubric's order; no free text (constrained output)."""
            award = [obj({"id": {"const": i}, "met": {"type": "boolean"}}) for i in awards]
            fail = [obj({"id": {"const": i}, "triggered": {"type": "boolean"}}) for i in fails]
            times = [
                obj({"id": {"const": i}, "times": {"type": "integer", "minimum": 0, "maximum": m}})
                for i, m in penalties
            ]
            return obj({"items": one_each(award), "fails": one_each(fail), "penalties": one_each(times)})

    return CheckedFlags


@cache
def rubric_schema(
    awards: tuple[tuple[str, float], ...],
    fails: tuple[str, ...],
    penalties: tuple[tuple[str, int], ...],
    labels: tuple[str, ...],
) -> type[RubricAnswer]:
    """The answer schema of one rubric: every id exactly once, every value within its bounds."""

    class Checked(RubricAnswer):
        @model_validator(mode="after")
        def _complete_and_bounded(self) -> Checked:
            _same_ids("items", [a.id for a in self.items], [i for i, _ in awards])
            _same_ids("fails", [f.id for f in self.fails], list(fails))
            _same_ids("penalties", [p.id for p in self.penalties], [i for i, _ in penalties])
            top = dict(awards)
            bad = [
                f"{a.id}: {a.awarded:g} not in [0, {top[a.id]:g}]"
                for a in self.items
                if not 0 <= a.awarded <= top[a.id]
            ]
            bounds = dict(penalties)
            bad += [
                f"{p.id}: {p.times} times, at most {bounds[p.id]}" for p in self.penalties if p.times > bounds[p.id]
            ]
            if labels:
                bad += [
                    f"{a.id}: error label {a.error!r} is not one of the listed labels"
                    for a in self.items
                    if a.error not in (None, "", *labels)
                ]
            if bad:
                raise PydanticCustomError("out_of_range", "values out of range: {bad}", {"bad": "; ".join(bad)})
            return self

        @classmethod
        def wire_schema(cls) -> dict[str, Any]:
            """Every id once, in the rubric's order, each value within its bounds (constrained output)."""
            error = {"error": {"enum": list(labels)}} if labels else {}
            award = [
                obj(
                    {
                        "id": {"const": i},
                        "awarded": {"type": "number", "minimum": 0, "maximum": top},
                        **error,
                        "justification": TEXT,
                    },
                    ["id", "awarded"],
                )
                for i, top in awards
            ]
            fail = [
                obj({"id": {"const": i}, "triggered": {"type": "boolean"}, "justification": TEXT}, ["id", "triggered"])
                for i in fails
            ]
            times = [
                obj(
                    {
                        "id": {"const": i},
                        "times": {"type": "integer", "minimum": 0, "maximum": most},
                        "justification": TEXT,
                    },
                    ["id", "times"],
                )
                for i, most in penalties
            ]
            return obj({"items": one_each(award), "fails": one_each(fail), "penalties": one_each(times)})

    return Checked


def _same_ids(where: str, got: list[str], expected: list[str]) -> None:
    if sorted(got) != sorted(expected):
        missing = sorted(set(expected) - set(got))
        unknown = sorted(set(got) - set(expected))
        raise PydanticCustomError(
            "incomplete",
            "{where}: answer each listed id exactly once (missing {missing}, unknown {unknown}, given {n})",
            {"where": where, "missing": missing, "unknown": unknown, "n": len(got)},
        )


def _schema_for(rubric: Rubric) -> type[RubricAnswer] | type[RubricFlagsAnswer]:
    if rubric.verdict == "flags":
        return rubric_flags_schema(
            tuple(i.id for i in rubric.of(ItemKind.AWARD)),
            tuple(i.id for i in rubric.of(ItemKind.FAIL)),
            tuple((i.id, i.max_times or MAX_COUNT) for i in rubric.of(ItemKind.PENALTY)),
        )
    return rubric_schema(
        tuple((i.id, i.points) for i in rubric.of(ItemKind.AWARD)),
        tuple(i.id for i in rubric.of(ItemKind.FAIL)),
        tuple((i.id, i.max_times or MAX_COUNT) for i in rubric.of(ItemKind.PENALTY)),
        rubric.error_labels,
    )


def _blocks(rubric: Rubric) -> list[dict[str, Any]]:
    """Award items under their group headings, in the rubric's order (ungrouped items first)."""
    groups = {g.id: g for g in rubric.groups}
    blocks: list[dict[str, Any]] = [{"group": None, "items": []}]
    placed: dict[str | None, dict[str, Any]] = {None: blocks[0]}
    for g in rubric.groups:
        placed[g.id] = {"group": g, "depth": _depth(g, groups), "items": []}
        blocks.append(placed[g.id])
    for item in rubric.of(ItemKind.AWARD):
        placed.get(item.group, blocks[0])["items"].append(item)
    return [b for b in blocks if b["items"] or b["group"] is not None]


def _depth(g: RubricGroup, groups: dict[str, RubricGroup]) -> int:
    return 0 if g.parent is None or g.parent not in groups else 1 + _depth(groups[g.parent], groups)


def rubric_prompt(
    response: str, rubric: Rubric | Sequence[RubricItem], *, question: str | None = None, template: str | None = None
) -> str:
    rubric = _as_rubric(rubric)
    context = {
        "question": (question or "").strip(),
        "response": response.strip(),
        "blocks": _blocks(rubric),
        "fails": rubric.of(ItemKind.FAIL),
        "penalties": rubric.of(ItemKind.PENALTY),
        "rules": list(rubric.rules),
        "error_labels": list(rubric.error_labels),
        "titles": {g.id: g.title for g in rubric.groups},
        "flags": rubric.verdict == "flags",
    }
    default = FLAGS_TEMPLATE if rubric.verdict == "flags" else TEMPLATE
    return render(template, context, inline=True) if template else render(default, context)


def rubric_version(rubric: Rubric | Sequence[RubricItem], *, template: str | None = None, name: str = KIND) -> str:
    """`name@hash8` over the template, the items as the judge sees them, the groups and the rules."""
    rubric = _as_rubric(rubric)
    items = [(i.id, i.text, i.points, i.kind.value, i.group, i.target, i.max_times) for i in rubric.items]
    groups = [(g.id, g.title, g.points, g.note, g.parent) for g in rubric.groups]
    flags = [rubric.verdict] if rubric.verdict != "points" else []  # the default keeps its earlier versions
    return version(
        name,
        template or template_source(FLAGS_TEMPLATE if rubric.verdict == "flags" else TEMPLATE),
        items,
        groups,
        list(rubric.rules),
        list(rubric.error_labels),
        *flags,
    )


def _as_rubric(rubric: Rubric | Sequence[RubricItem]) -> Rubric:
    return rubric if isinstance(rubric, Rubric) else Rubric(items=tuple(rubric))


def _proxy_metadata(rubric: Rubric, response: str) -> dict[str, Any]:
    """What the offline proxy judge reads (real judges never see call metadata)."""

    def row(i: RubricItem) -> dict[str, Any]:
        return {
            "id": i.id,
            "kind": i.kind.value,
            "text": i.text,
            "points": i.points,
            "key_phrases": list(i.key_phrases),
            "reference": i.reference,
            "error_hint": i.error_hint,
        }

    flags = {"verdict": rubric.verdict} if rubric.verdict != "points" else {}
    return {
        "judge_kind": KIND,
        "response": response,
        "items": [row(i) for i in rubric.items],
        "error_labels": list(rubric.error_labels),
        **flags,
    }


async def judge_rubric(
    door: Completer,
    model: ModelConfig,
    *,
    response: str,
    items: Sequence[RubricItem] | None = None,
    rubric: Rubric | None = None,
    question: str | None = None,
    template: str | None = None,
    name: str = KIND,
    metadata: dict[str, Any] | None = None,
    repairs: int = 1,
) -> Judgement:
    """Score `response` against `rubric` (or a flat list of award `items`) in one call."""
    rub = rubric if rubric is not None else Rubric(items=tuple(items or ()))
    ids = [i.id for i in rub.items]
    if len(set(ids)) != len(ids) or not rub.of(ItemKind.AWARD):
        raise ValueError("rubric items need distinct ids, and at least one award item")
    schema = _schema_for(rub)
    meta = {**(metadata or {}), **_proxy_metadata(rub, response)}
    prompt = rubric_prompt(response, rub, question=question, template=template)
    asked = await ask_json(door, model, prompt, schema, metadata=meta, repairs=repairs)
    by = JudgedBy.of(model, rubric_version(rub, template=template, name=name))
    if asked.value is None:
        return by.judgement(None, [asked])
    answer = asked.value
    if isinstance(answer, RubricFlagsAnswer):
        points = {i.id: i.points for i in rub.of(ItemKind.AWARD)}
        answers = {a.id: Answer(points[a.id] if a.met else 0.0, a.justification) for a in answer.items}
    else:
        answers = {a.id: Answer(a.awarded, a.justification, a.error or None) for a in answer.items}
    answers |= {f.id: Answer(float(f.triggered), f.justification) for f in answer.fails}
    answers |= {p.id: Answer(float(p.times), p.justification) for p in answer.penalties}
    counted = tally(rub, answers)
    return by.judgement(counted.value, [asked], counted.evidence())


EMPTY_REASON = "an empty answer (nothing left once the reasoning trace is removed): scored 0 by rule, never judged"


def empty_answer_judgement(
    rubric: Rubric | Sequence[RubricItem], *, template: str | None = None, name: str = KIND
) -> Judgement:
    """What an empty answer earns against `rubric`, without asking a judge (an empty text is never judged as text):
    no award item met, no fail condition or penalty applied, tallied as a judge's answer would be. Judge `rule`;
    the evidence says `empty_answer`."""
    rub = _as_rubric(rubric)
    nothing = {i.id: Answer(0.0, EMPTY_REASON) for i in rub.items}  # 0 points, not triggered, 0 times
    counted = tally(rub, nothing)
    by = JudgedBy("rule", False, rubric_version(rub, template=template, name=name))
    return by.scored(counted.value, {**counted.evidence(), "empty_answer": True})

"""CD and DD: II-1 format following and II-2's components on the drafted document (spec j1-envs §5.5-5.6).

The document is the run's deliverable (the lawyer's final complaint or defence), read again here with the
metric's own section cutter, so a parser fix needs no new simulation. II-1 = Seq × Label. II-2 is the plain
mean of its components (CD: PLA DEF CLA EVI F&R; DD: RES DEF EVI): the party blocks by field exact match, the
others by the pointwise judge against the case; a section that is missing or only a placeholder scores 0
without a judge, a component with nothing in the truth (a defence case without evidence) is skipped, and a
judge failure in any component leaves II-2 unscored (counted), as the mean of a subset is another metric. No
document at all is the paper's failed task: II-1 and every component 0.
"""

from __future__ import annotations

import asyncio

from steps.j1.envs.common.profiles import PartyTruth
from steps.j1.envs.environment import Drafting, JudgedSection
from steps.j1.envs.registry import environment
from steps.j1.eval.case import Case, Panel
from steps.j1.eval.metrics import COMPLAINT, DEFENCE, DocumentFormat, PartyFacts, document_sections, format_following
from steps.j1.eval.metrics.parties import party_fields
from steps.j1.eval.records import Row, ScoreRow
from steps.j1.params import J1EvalParams
from steps.judges.pointwise import Comparison

FORMATS: dict[str, DocumentFormat] = {f.name: f for f in (COMPLAINT, DEFENCE)}  # an environment's `document`


def drafting_of(scenario: str) -> Drafting:
    """The environment's drafting registration: its document, party components and judged components."""
    spec = environment(scenario).drafting
    if spec is None:
        raise ValueError(f"{scenario}: the drafting evaluator needs an environment that names its document")
    return spec


def reference_text(value: str | list[str]) -> str:
    """A truth field as the judge reads it: a list is numbered 1. 2. …"""
    if isinstance(value, str):
        return value.strip()
    return "\n".join(f"{i}. {item.strip()}" for i, item in enumerate(value, 1))


async def evaluate(case: Case, panel: Panel, options: J1EvalParams) -> list[ScoreRow]:
    spec = drafting_of(case.scenario)
    row, fmt = Row(case.instance_id, case.scenario), FORMATS[spec.document]
    document = case.document
    components = fmt.components
    if document is None:
        parts = [row.failed_task("II-2", 0.0, c, reason="no document") for c in components]
        return [row.failed_task("II-1", 0.0, reason="no document"), row.combined("II-2", parts), *parts]
    score = format_following(document, fmt)
    forced = bool(case.deliverable.get("forced"))
    ii1 = row.rule(
        "II-1",
        score.value,
        seq=score.seq,
        label=score.label,
        exact=list(score.exact),
        order=list(score.order),
        missing=list(score.missing),
        forced=forced,
    )
    sections = document_sections(document, fmt)
    em = [_party(row, c, sections.get(fmt.em_components[c]), getattr(case.truth, f)) for c, f in spec.parties.items()]
    judged = await asyncio.gather(
        *(
            _judged(row, c, judged, sections.get(judged.section), getattr(case.truth, judged.truth), panel)
            for c, judged in spec.judged.items()
        )
    )
    by_name = {p.component: p for p in [*em, *judged]}
    parts = [by_name[c] for c in components]
    return [ii1, row.combined("II-2", parts, forced=forced), *parts]


def _party(row: Row, component: str, block: str | None, truth: PartyTruth | list[PartyTruth]) -> ScoreRow:
    """An EM component: the stated fields of every party of that side, pooled."""
    parties = truth if isinstance(truth, list) else [truth]
    matched = missed = 0
    detail = []
    for party in parties:
        facts = PartyFacts(**party.model_dump())
        result = party_fields(block, facts)
        matched, missed = matched + len(result.matched), missed + len(result.missed)
        detail.append({"name": party.name, "matched": list(result.matched), "missed": list(result.missed)})
    if matched + missed == 0:
        return row.skipped("II-2", component, reason="the case states no particulars", parties=detail)
    return row.rule("II-2", matched / (matched + missed), component, parties=detail, block=(block or "")[:300])


async def _judged(
    row: Row, component: str, spec: JudgedSection, section: str | None, truth: str | list[str], panel: Panel
) -> ScoreRow:
    reference = reference_text(truth)
    if not reference:
        return row.skipped("II-2", component, reason="nothing in the truth")
    if section is None:
        return row.rule("II-2", 0.0, component, reason=f"section {spec.section} missing or a placeholder")
    comparison = Comparison(reference=reference, candidate=section, aspect=spec.aspect)
    return row.judged("II-2", await panel.compare(comparison, metric=f"II-2/{component}"), component)

"""The parts of a J1 deliverable that the metrics read, parsed as they parse them (spec j1-envs §5).

A complaint or defence is cut into its template sections (steps.metrics.j1.documents); a judgment into its
本院认为 reasoning and rulings, with the provisions it cites and, in the criminal court, the charges and the
sentence it gives (the extraction parsers, as III-3 … III-6 read them). KQ and LC have no document: their parts
are how many topics the supervisor found answered.
"""

from __future__ import annotations

from typing import Any

from steps.extract.sections import judgment_parts
from steps.extract.statutes import find_statutes
from steps.metrics.j1.crime import predicted_charges
from steps.metrics.j1.documents import COMPLAINT, DEFENCE, document_sections
from steps.metrics.j1.penalty import predicted_sentence
from steps.simulate.instance import Instance
from steps.simulate.model import Dialogue, Scenario

DOCUMENTS = {"CD": COMPLAINT, "DD": DEFENCE}


def _laws(text: str) -> list[dict[str, Any]]:
    found = dict.fromkeys((s.law.strip("《》"), s.article, s.sub_article) for _, s in find_statutes(text)[0])
    return [{"law": law, "article": article, "sub_article": sub} for law, article, sub in found]


def _judgment(code: str, text: str, instance: Instance) -> dict[str, Any]:
    parts = judgment_parts(text)
    out: dict[str, Any] = {"reasoning": parts.reasoning, "rulings": parts.rulings, "laws": _laws(text)}
    if code == "CR":
        defendant = instance.ground_truth.get("defendant")
        charges, _ = predicted_charges(text, defendant)
        sentence = predicted_sentence(text, defendant)
        out |= {"charges": list(charges), "penalty": sentence.penalty, "prison_months": sentence.prison_months,
                "fine_yuan": sentence.fine_yuan}  # fmt: skip
    return out


def deliverable_parts(scenario: Scenario, instance: Instance, dialogue: Dialogue) -> dict[str, Any]:
    code, text = scenario.code, dialogue.deliverable
    if code in ("KQ", "LC"):
        state = dialogue.state
        total = len(state.get("topics", []))
        return {"topics_total": total, "topics_addressed": total - len(state.get("unaddressed", []))}
    if not text:
        return {}
    if code in DOCUMENTS:
        sections = document_sections(text, DOCUMENTS[code])
        return {"sections": [{"name": k, "text": v} for k, v in sections.items()]}
    if code in ("CI", "CR"):
        return _judgment(code, text, instance)
    return {}

"""DD instances from civil cases: the defendant's defence and evidence; the lawyer sees the complaint."""

from __future__ import annotations

from typing import Any

from steps.personas.generate import Persona
from steps.scenarios.dd.scenario import DD
from steps.scenarios.j1.built import Built, Skipped, missing
from steps.scenarios.j1.casefields import evidence, is_entity, joined, particulars, parties, party_text
from steps.scenarios.j1.documents import DEFENCE_TEMPLATE


def build(case: dict[str, Any], persona: Persona | None) -> Built | Skipped:
    iid, src = f"DD/{case['case_id']}", (case["case_id"],)
    defendants = parties(case, "被告")
    defence = joined(list(case.get("defence") or []))
    gaps = missing(
        case,
        {
            "defendant": defendants,
            "defence": defence,
            "claims": case.get("claims"),
            "case_details": case.get("case_details"),
            "persona": persona and persona.style,
        },
    )
    if gaps:
        return Skipped(iid, "DD", src, "missing: " + ", ".join(gaps))
    respondent = defendants[0]
    profiles = {
        "defendant": {
            "kind": "entity" if is_entity(respondent) else "person",
            "basic_info": party_text(respondent),
            "defence": defence,
            "evidences": evidence(case, "defendant"),
            "style": persona.style,
        },
        # The court and case number are given when the judgment states them (C3RD documents do not).
        "lawyer": {
            "template": DEFENCE_TEMPLATE,
            "court": case.get("court"),
            "case_number": case.get("case_number"),
            "case_details": case["case_details"],
            "claims": list(case["claims"]),
        },
    }
    truth = {"respondent": particulars(respondent), "defence": defence, "evidence": evidence(case, "defendant")}
    return Built(iid, "DD", src, profiles, truth, DD.ending.max_turns, (persona.key,))

"""CD instances from civil cases: the plaintiff's facts, claims and evidence; the GT complaint's parts."""

from __future__ import annotations

from typing import Any

from steps.personas.generate import Persona
from steps.scenarios.cd.scenario import CD
from steps.scenarios.j1.built import Built, Skipped, missing
from steps.scenarios.j1.casefields import evidence, is_entity, particulars, parties, party_text
from steps.scenarios.j1.documents import COMPLAINT_TEMPLATE


def build(case: dict[str, Any], persona: Persona | None) -> Built | Skipped:
    iid, src = f"CD/{case['case_id']}", (case["case_id"],)
    plaintiffs, defendants = parties(case, "原告"), parties(case, "被告")
    gaps = missing(
        case,
        {
            "plaintiff": plaintiffs,
            "defendant": defendants,
            "case_details": case.get("case_details"),
            "claims": case.get("claims"),
            "persona": persona and persona.style,
        },
    )
    if gaps:
        return Skipped(iid, "CD", src, "missing: " + ", ".join(gaps))
    profiles = {
        "plaintiff": {
            "kind": "entity" if is_entity(plaintiffs[0]) else "person",
            "basic_info": "；".join(party_text(p) for p in plaintiffs),
            "defendant_info": "；".join(party_text(p) for p in defendants),
            "case_details": case["case_details"],
            "claims": list(case["claims"]),
            "evidences": evidence(case, "plaintiff"),
            "style": persona.style,
        },
        "lawyer": {"template": COMPLAINT_TEMPLATE},
    }
    truth = {
        "plaintiffs": [particulars(p) for p in plaintiffs],
        "defendants": [particulars(p) for p in defendants],
        "claims": list(case["claims"]),
        "case_details": case["case_details"],
        "evidence": evidence(case, "plaintiff"),
    }
    return Built(iid, "CD", src, profiles, truth, CD.ending.max_turns, (persona.key,))

"""CD instances from civil judgments: the plaintiff's particulars, facts, claims and evidence (spec j1-envs §2.4).

The plaintiff is the lay role (persona from its case details); the lawyer under test gets only the complaint
template. The ground truth is the case's own complaint parts, which II-2 compares with the drafted complaint.
"""

from __future__ import annotations

from typing import Any

from steps.j1.envs.cd.scenario import CD
from steps.j1.envs.common.built import Draft, Skipped, skip_if_missing
from steps.j1.envs.common.casefields import evidence, held_particulars, is_entity, parties, party_text, party_truth
from steps.j1.envs.common.documents import COMPLAINT_TEMPLATE
from steps.j1.personas.generate import Subject


def draft(case: dict[str, Any]) -> Draft | Skipped:
    iid, src = f"CD/{case['case_id']}", (case["case_id"],)
    plaintiffs, defendants = parties(case, "原告"), parties(case, "被告")
    proof = evidence(case, "plaintiff")
    needs = {
        "judgment": case.get("doc_type") == "民事判决书" or None,
        "plaintiff": plaintiffs,
        "defendant": defendants,
        "case_details": case.get("case_details"),
        "claims": case.get("claims"),
        "plaintiff_evidence": proof,
    }
    if skipped := skip_if_missing(iid, "CD", src, needs):
        return skipped
    kind = "entity" if is_entity(plaintiffs[0]) else "person"
    subject = Subject(
        key=f"{iid}/plaintiff",
        scenario="CD",
        role="plaintiff",
        role_desc="民事案件的原告" + ("（单位的负责人）" if kind == "entity" else "（自然人）"),
        kind=kind,
        info=case["case_details"],
        particulars=held_particulars(plaintiffs[0]),
    )
    profiles = {
        "plaintiff": {
            "kind": kind,
            "basic_info": "；".join(map(party_text, plaintiffs)),
            "defendant_info": "；".join(map(party_text, defendants)),
            "case_details": case["case_details"],
            "claims": list(case["claims"]),
            "evidences": proof,
        },
        "lawyer": {"template": COMPLAINT_TEMPLATE},
    }
    truth = {
        "cause": case.get("cause"),
        "plaintiffs": [party_truth(p) for p in plaintiffs],
        "defendants": [party_truth(p) for p in defendants],
        "claims": list(case["claims"]),
        "case_details": case["case_details"],
        "evidence": proof,
    }
    return Draft(iid, "CD", src, profiles, truth, CD.ending.max_turns, subject, {"cause": case.get("cause")})

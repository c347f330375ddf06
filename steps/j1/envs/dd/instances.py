"""DD instances from civil judgments: the defendant's defence and evidence; the lawyer reads the complaint.

The defendant is the lay role (persona from its statement of defence, spec j1-envs §4). The lawyer under test
gets the defence template, the court and case number when the judgment states them, and the plaintiff's
complaint rendered from the case with the complaint template (spec §2.5). The ground truth is the defendant's
particulars, its defence and its evidence.
"""

from __future__ import annotations

from typing import Any

from steps.j1.envs.common.built import Draft, Skipped, skip_if_missing
from steps.j1.envs.common.casefields import (
    defence_text,
    evidence,
    held_particulars,
    is_entity,
    parties,
    party_text,
    party_truth,
)
from steps.j1.envs.common.documents import DEFENCE_TEMPLATE, render_complaint
from steps.j1.envs.dd.scenario import DD
from steps.j1.personas.generate import Subject


def draft(case: dict[str, Any]) -> Draft | Skipped:
    iid, src = f"DD/{case['case_id']}", (case["case_id"],)
    plaintiffs, defendants = parties(case, "原告"), parties(case, "被告")
    defence = defence_text(case)
    needs = {
        "judgment": case.get("doc_type") == "民事判决书" or None,
        "plaintiff": plaintiffs,
        "defendant": defendants,
        "defence": defence,
        "claims": case.get("claims"),
        "case_details": case.get("case_details"),
    }
    if skipped := skip_if_missing(iid, "DD", src, needs):
        return skipped
    assert defence is not None  # one of the needs: skip_if_missing returned otherwise
    respondent = defendants[0]
    kind = "entity" if is_entity(respondent) else "person"
    proof = evidence(case, "defendant")
    subject = Subject(
        key=f"{iid}/defendant",
        scenario="DD",
        role="defendant",
        role_desc="民事案件的被告" + ("（单位的负责人）" if kind == "entity" else "（自然人）"),
        kind=kind,
        info=defence,
        particulars=held_particulars(respondent),
    )
    complaint = render_complaint(
        [party_text(p) for p in plaintiffs],
        [party_text(p) for p in defendants],
        list(case["claims"]),
        case["case_details"],
        evidence(case, "plaintiff"),
    )
    profiles: dict[str, dict[str, Any]] = {
        "defendant": {"kind": kind, "basic_info": party_text(respondent), "defence": defence, "evidences": proof},
        "lawyer": {
            "template": DEFENCE_TEMPLATE,
            "complaint": complaint,
            "court": case.get("court"),
            "case_number": case.get("case_number"),
        },
    }
    truth = {"cause": case.get("cause"), "respondent": party_truth(respondent), "defence": defence, "evidence": proof}
    return Draft(iid, "DD", src, profiles, truth, DD.ending.max_turns, subject, {"cause": case.get("cause")})

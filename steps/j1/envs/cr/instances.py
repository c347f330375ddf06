"""CR instances from criminal judgments: the defendant's plea, the defence's opinion, the procurator's charges.

One accused per instance (the environment has one 被告人 role): a judgment against several is skipped. The
judge under test gets the accused's particulars and the facts found without any sentence stating the charge,
the sentence or the provisions (spec j1-envs §2.7); the ground truth is the court's charges, principal penalty,
term, fine, reasoning and provisions (III-3 … III-6).
"""

from __future__ import annotations

from typing import Any

from steps.j1.envs.common.built import Draft, Skipped, skip_if_missing
from steps.j1.envs.common.casefields import (
    court_laws,
    evidence,
    joined,
    number,
    parties,
    party_text,
    statements,
    without_outcome,
)
from steps.j1.envs.cr.scenario import CR


def draft(case: dict[str, Any]) -> Draft | Skipped:
    iid, src = f"CR/{case['case_id']}", (case["case_id"],)
    accused = parties(case, "被告人")
    if len(accused) > 1:
        return Skipped(iid, "CR", src, f"several defendants ({len(accused)}): the CR court has one 被告人 role")
    charges = list(case.get("charges") or [])
    findings = without_outcome(case.get("court_findings") or "", charges)
    plea = joined(statements(case, "pleas", "defendant"))
    defence = joined(statements(case, "pleas", "defence_lawyer"))
    laws = court_laws(case)
    needs = {
        "first_instance": case.get("procedure") == "first_instance" or None,
        "defendant": accused,
        "charges": charges,
        "penalty": case.get("penalty"),
        "findings": findings,
        "reasoning": case.get("court_reasoning"),
        "laws": laws,
        "procurator_charges": case.get("procurator_charges"),
        "defendant_plea": plea,
        "defence_opinion": defence,
    }
    if skipped := skip_if_missing(iid, "CR", src, needs):
        return skipped
    if case["penalty"] in ("有期徒刑", "拘役", "管制") and number(case.get("prison_months")) is None:
        return Skipped(iid, "CR", src, f"missing: prison_months ({case['penalty']} without a term)")
    info = party_text(accused[0])
    profiles: dict[str, dict[str, Any]] = {
        "judge": {"defendant_info": info, "findings": findings},
        "defendant": {"defendant_info": info, "case_details": case.get("case_details") or findings, "plea": plea},
        "defence": {"client_info": info, "plea": defence},
        "procurator": {
            "defendant_info": info,
            "charges": "；".join(case["procurator_charges"]),
            "facts": case.get("case_details") or findings,
            "opinion": case.get("procurator_opinion") or None,
            "evidence": evidence(case, "procurator", "court"),
        },
    }
    truth = {
        "defendant": accused[0]["name"],
        "charges": charges,
        "penalty": case["penalty"],
        "prison_months": number(case.get("prison_months")),
        "probation_months": number(case.get("probation_months")),
        "fine_yuan": number(case.get("fine_yuan")),
        "rulings": list(case.get("rulings") or []),
        "reasoning": case["court_reasoning"],
        "laws": laws,
    }
    return Draft(iid, "CR", src, profiles, truth, CR.ending.max_turns, None, {"charges": charges})

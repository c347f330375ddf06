"""CI instances from civil judgments: both lawyers' briefs, the judge's neutral findings (spec j1-envs §2.6).

The judge under test gets both parties' particulars and the facts the court found, with every sentence that
states the outcome removed; the ground truth is the court's rulings, reasoning and applied provisions.
"""

from __future__ import annotations

from typing import Any

from steps.j1.envs.ci.scenario import CI
from steps.j1.envs.common.built import Draft, Skipped, skip_if_missing
from steps.j1.envs.common.casefields import (
    court_laws,
    defence_text,
    evidence,
    joined,
    parties,
    party_text,
    statements,
    without_outcome,
)


def draft(case: dict[str, Any]) -> Draft | Skipped:
    iid, src = f"CI/{case['case_id']}", (case["case_id"],)
    plaintiffs, defendants = parties(case, "原告"), parties(case, "被告")
    findings = without_outcome(case.get("court_findings") or "", [])
    defence = defence_text(case)
    laws = court_laws(case)
    needs = {
        "judgment": case.get("doc_type") == "民事判决书" or None,
        "plaintiff": plaintiffs,
        "defendant": defendants,
        "findings": findings,
        "reasoning": case.get("court_reasoning"),
        "rulings": case.get("rulings"),
        "laws": laws,
        "claims": case.get("claims"),
        "case_details": case.get("case_details"),
        "defence": defence,
    }
    if skipped := skip_if_missing(iid, "CI", src, needs):
        return skipped
    p_info, d_info = "；".join(map(party_text, plaintiffs)), "；".join(map(party_text, defendants))
    profiles = {
        "judge": {"plaintiff_info": p_info, "defendant_info": d_info, "findings": findings},
        "plaintiff_lawyer": {
            "client_info": p_info,
            "defendant_info": d_info,
            "facts_and_reasons": case["case_details"],
            "claims": list(case["claims"]),
            "evidences": evidence(case, "plaintiff"),
            "refute": joined(statements(case, "cross_exam", "plaintiff")),
            "other_statement": joined(statements(case, "other_statements", "plaintiff")),
        },
        "defendant_lawyer": {
            "client_info": d_info,
            "plaintiff_info": p_info,
            "claims": defence,
            "evidences": evidence(case, "defendant"),
            "refute": joined(statements(case, "cross_exam", "defendant")),
            "other_statement": joined(statements(case, "other_statements", "defendant")),
        },
    }
    truth = {
        "cause": case.get("cause"),
        "rulings": list(case["rulings"]),
        "reasoning": case["court_reasoning"],
        "laws": laws,
    }
    return Draft(iid, "CI", src, profiles, truth, CI.ending.max_turns, None, {"cause": case.get("cause")})

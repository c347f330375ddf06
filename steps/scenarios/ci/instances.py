"""CI instances from civil cases: both lawyers' briefs, the judge's neutral findings, the GT judgment."""

from __future__ import annotations

from typing import Any

from steps.scenarios.ci.scenario import CI
from steps.scenarios.j1.built import Built, Skipped, missing
from steps.scenarios.j1.casefields import evidence, joined, parties, party_text, statements, without_verdict

NONE = "（无）"


def build(case: dict[str, Any]) -> Built | Skipped:
    iid, src = f"CI/{case['case_id']}", (case["case_id"],)
    plaintiffs, defendants = parties(case, "原告"), parties(case, "被告")
    findings = without_verdict(case.get("court_findings") or "", [])
    defence = joined(list(case.get("defence") or []))
    gaps = missing(
        case,
        {
            "plaintiff": plaintiffs,
            "defendant": defendants,
            "findings": findings,
            "reasoning": case.get("court_reasoning"),
            "rulings": case.get("rulings"),
            "claims": case.get("claims"),
            "case_details": case.get("case_details"),
            "defence": defence,
        },
    )
    if gaps:
        return Skipped(iid, "CI", src, "missing: " + ", ".join(gaps))
    p_info, d_info = "；".join(map(party_text, plaintiffs)), "；".join(map(party_text, defendants))
    profiles = {
        "judge": {"plaintiff_info": p_info, "defendant_info": d_info, "findings": findings},
        "plaintiff_lawyer": {
            "client_info": p_info,
            "defendant_info": d_info,
            "facts_and_reasons": case["case_details"],
            "claims": list(case["claims"]),
            "evidences": evidence(case, "plaintiff"),
            "refute": joined(statements(case, "cross_exam", "plaintiff"), NONE),
            "other_statement": joined(statements(case, "other_statements", "plaintiff"), NONE),
        },
        "defendant_lawyer": {
            "client_info": d_info,
            "plaintiff_info": p_info,
            "claims": defence,
            "evidences": evidence(case, "defendant"),
            "refute": joined(statements(case, "cross_exam", "defendant"), NONE),
            "other_statement": joined(statements(case, "other_statements", "defendant"), NONE),
        },
    }
    truth = {
        "rulings": list(case["rulings"]),
        "reasoning": case["court_reasoning"],
        "laws": [{"law": s["law"], "article": int(s["article"])} for s in case.get("statutes") or []],
    }
    return Built(iid, "CI", src, profiles, truth, CI.ending.max_turns)

"""CR instances from criminal cases: the defendant's plea, the defence's opinion, the procurator's charges."""

from __future__ import annotations

from typing import Any

from steps.scenarios.cr.scenario import CR
from steps.scenarios.j1.built import Built, Skipped, missing
from steps.scenarios.j1.casefields import evidence, joined, parties, party_text, statements, without_verdict


def build(case: dict[str, Any]) -> Built | Skipped:
    iid, src = f"CR/{case['case_id']}", (case["case_id"],)
    accused = parties(case, "被告人")
    charges = list(case.get("charges") or [])
    findings = without_verdict(case.get("court_findings") or "", charges)
    plea = joined(statements(case, "pleas", "defendant"))
    defence = joined(statements(case, "pleas", "defence_lawyer"))
    gaps = missing(
        case,
        {
            "defendant": accused,
            "charges": charges,
            "findings": findings,
            "reasoning": case.get("court_reasoning"),
            "rulings": case.get("rulings"),
            "procurator_charges": case.get("procurator_charges"),
            "defendant_plea": plea,
            "defence_opinion": defence,
            "penalty": case.get("penalty") or case.get("prison_months") or case.get("fine_yuan"),
        },
    )
    if gaps:
        return Skipped(iid, "CR", src, "missing: " + ", ".join(gaps))
    info = "；".join(map(party_text, accused))
    profiles = {
        "judge": {"defendant_info": info, "findings": findings},
        "defendant": {"defendant_info": info, "case_details": case.get("case_details") or findings, "plea": plea},
        "defence": {"client_info": info, "plea": defence},
        "procurator": {
            "defendant_info": info,
            "charges": joined(list(case["procurator_charges"])),
            "opinion": case.get("procurator_opinion") or "（见起诉书）",
            "evidence": evidence(case, "procurator", "court"),
        },
    }
    truth = {
        "charges": charges,
        "prison_months": _num(case.get("prison_months")),
        "probation_months": _num(case.get("probation_months")),
        "fine_yuan": _num(case.get("fine_yuan")),
        "penalty": case.get("penalty"),
        "rulings": list(case["rulings"]),
        "reasoning": case["court_reasoning"],
        "laws": [{"law": s["law"], "article": int(s["article"])} for s in case.get("statutes") or []],
    }
    return Built(iid, "CR", src, profiles, truth, CR.ending.max_turns)


def _num(value: Any) -> float | None:
    return None if value is None or value != value else float(value)  # NaN from Parquet → None

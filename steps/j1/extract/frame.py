"""`cases_frame`: parsed cases as one typed DataFrame row each."""

from __future__ import annotations

from dataclasses import asdict

import pandas as pd

from steps.j1.extract.model import DefendantVerdict, ParsedCase

STRING_COLUMNS = ("source_id", "kind", "court", "doc_type", "case_number", "procedure", "title", "penalty")
COLUMNS = [
    "source_id",
    "kind",
    "court",
    "doc_type",
    "case_number",
    "procedure",
    "title",
    "parties",
    "statutes",
    "charges",
    "penalty",
    "prison_months",
    "probation_months",
    "fine_yuan",
    "defendants",
    "rulings",
    "cost_fee_yuan",
    "cost_collected_yuan",
    "costs_borne_by",
    "issues",
    "n_issues",
]
FLOAT_COLUMNS = ("prison_months", "probation_months", "fine_yuan", "cost_fee_yuan", "cost_collected_yuan")


def _defendant(d: DefendantVerdict) -> dict:
    return {
        "name": d.name,
        "charges": list(d.charges),
        "penalty": d.penalty,
        "prison_months": d.prison_months,
        "probation_months": d.probation_months,
        "fine_yuan": d.fine_yuan,
        "confiscation": list(d.confiscation),
        "combined": d.combined,
    }


def _row(case: ParsedCase) -> dict:
    first = case.defendants[0] if case.defendants else None
    return {
        "source_id": case.source_id,
        "kind": case.kind,
        "court": case.header.court,
        "doc_type": case.header.doc_type,
        "case_number": case.header.case_number,
        "procedure": str(case.header.procedure),
        "title": case.header.title,
        "parties": [{"role": p.role, "name": p.name, "entity": p.entity} for p in case.parties],
        "statutes": [s.as_dict() for s in case.statutes],
        "charges": list(first.charges) if first else [],
        "penalty": first.penalty if first else None,
        "prison_months": first.prison_months if first else None,
        "probation_months": first.probation_months if first else None,
        "fine_yuan": first.fine_yuan if first else None,
        "defendants": [_defendant(d) for d in case.defendants],
        "rulings": list(case.rulings),
        "cost_fee_yuan": case.costs.fee_yuan if case.costs else None,
        "cost_collected_yuan": case.costs.collected_yuan if case.costs else None,
        "costs_borne_by": [asdict(s) for s in case.costs.borne_by] if case.costs else [],
        "issues": [{"field": i.field, "kind": str(i.kind), "detail": i.detail} for i in case.issues],
        "n_issues": len(case.issues),
    }


def cases_frame(parsed: list[ParsedCase]) -> pd.DataFrame:
    """One row per case. The scalar criminal columns describe the first (or only) defendant; `defendants` has all.

    Columns: source_id, kind, court, doc_type, case_number, procedure, title (string); parties, statutes
    (lists of dicts: {law, article, sub_article, paragraph, item, source, basis, inferred}), charges (list of
    str); penalty (string); prison_months, probation_months, fine_yuan (Float64); defendants (list of dicts);
    rulings (list of str); cost_fee_yuan, cost_collected_yuan (Float64); costs_borne_by, issues (lists of
    dicts); n_issues (Int64).
    """
    frame = pd.DataFrame([_row(c) for c in parsed], columns=COLUMNS)
    for column in STRING_COLUMNS:
        frame[column] = frame[column].astype("string")
    for column in FLOAT_COLUMNS:
        frame[column] = pd.to_numeric(frame[column]).astype("Float64")
    frame["n_issues"] = frame["n_issues"].astype("Int64")
    return frame

"""The `cases` and `extraction_issues` tables: parser columns, cross-checked LLM columns, provenance, issues."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import pandas as pd

from steps.j1.extract.answers import FIELDS, LLM_COLUMNS
from steps.j1.extract.crosscheck import crosscheck
from steps.j1.extract.frame import cases_frame
from steps.j1.extract.inputs import CaseInput
from steps.j1.extract.issues import IssueRow, LLMIssue, Stage, from_parser
from steps.j1.extract.laws import official_name
from steps.j1.extract.llm_fields import LLMResult, extract_all, missing_mandatory
from steps.j1.extract.model import Party
from steps.j1.extract.prompts import PROMPT_VERSION
from steps.j1.extract.version import parser_version
from steps.llm import Completer, ModelConfig

PROVENANCE = (
    "case_id",
    "source",
    "source_id",
    "kind",
    "parser_version",
    "extraction_model",
    "llm_fields_source",
    "llm_status",
    "prompt_version",
    "run_id",
)
PARSER_COLUMNS = (
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
)
CASE_COLUMNS = [*PROVENANCE, *PARSER_COLUMNS, *LLM_COLUMNS, "issues", "n_issues"]
ISSUE_COLUMNS = [
    "case_id",
    "source",
    "source_id",
    "case_kind",
    "stage",
    "field",
    "subject",
    "kind",
    "detail",
    "parser_value",
    "llm_value",
]
_TEXT_COLUMNS = ("case_details", "procurator_opinion", "court_findings", "court_reasoning")


@dataclass(frozen=True)
class Provenance:
    """What produced the rows: the parser, the extraction model (scripted or not), the prompt and the run."""

    parser_version: str
    extraction_model: str
    scripted: bool
    prompt_version: int
    run_id: str


@dataclass(frozen=True)
class Extracted:
    case: CaseInput
    llm: LLMResult
    values: dict  # the LLM columns that passed validation and grounding
    issues: list[IssueRow]  # every stage's issues, parser first


def assemble(case: CaseInput, llm: LLMResult) -> Extracted:
    """Cross-check one case's answer; collect the parser's, the model's and the cross-check's issues."""
    kept, checks = crosscheck(case, llm.values)
    failed = {i.field for i in llm.issues}
    issues = [from_parser(i) for i in case.parsed.issues] + llm.issues
    issues += missing_mandatory(case, llm.values, failed) + checks
    return Extracted(case, llm, kept, issues)


async def extract_checked(
    door: Completer, model: ModelConfig, cases: list[CaseInput], *, max_attempts: int, on_done=None
) -> list[Extracted]:
    """The LLM fields of every case (`extract_all`), each cross-checked with the parser (`assemble`)."""
    results = await extract_all(door, model, cases, max_attempts=max_attempts, on_done=on_done)
    return [assemble(c, r) for c, r in zip(cases, results, strict=True)]


def provenance_of(model: ModelConfig, run_id: str) -> Provenance:
    """The rows' provenance: this parser, `model` (scripted or not), this prompt version, the run `run_id`."""
    return Provenance(parser_version(), model.model, model.is_scripted, PROMPT_VERSION, run_id)


def _party(p: Party) -> dict:
    row = asdict(p)
    row.pop("text")
    row["custody"] = [{"kind": c.kind, "date": c.date} for c in p.custody]
    row["prior_records"] = list(p.prior_records)
    return row


def _llm_value(e: Extracted, name: str):
    if name in e.values:
        return e.values[name]
    return None  # not a field of this kind, or the model failed on it (the issues say which)


def cases_table(extracted: list[Extracted], provenance: Provenance) -> pd.DataFrame:
    """One row per case, in input order."""
    base = cases_frame([e.case.parsed for e in extracted])
    frame = pd.DataFrame(
        {
            "case_id": [e.case.case_id for e in extracted],
            "source": [e.case.source for e in extracted],
            "source_id": [e.case.source_id for e in extracted],
            "kind": [e.case.kind for e in extracted],
            "parser_version": provenance.parser_version,
            "extraction_model": provenance.extraction_model,
            "llm_fields_source": "scripted" if provenance.scripted else provenance.extraction_model,
            "llm_status": [e.llm.status for e in extracted],
            "prompt_version": provenance.prompt_version,
            "run_id": provenance.run_id,
        },
        columns=list(PROVENANCE),
    )
    for name in PARSER_COLUMNS:
        frame[name] = base[name].to_numpy() if len(base) else pd.Series(dtype=object)
    frame["parties"] = [[_party(p) for p in e.case.parsed.parties] for e in extracted]
    frame["statutes"] = [
        [{**s.as_dict(), "law": official_name(s.law)} for s in e.case.parsed.statutes] for e in extracted
    ]
    for name in LLM_COLUMNS:
        frame[name] = [_llm_value(e, name) for e in extracted]
    frame["issues"] = [[_short(i) for i in e.issues] for e in extracted]
    frame["n_issues"] = [len(e.issues) for e in extracted]
    return _typed(frame)


def _short(issue: IssueRow) -> dict:
    row = issue.as_dict()
    return {k: row[k] for k in ("stage", "field", "subject", "kind", "detail")}


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    for name in (*PROVENANCE, "court", "doc_type", "case_number", "procedure", "title", "penalty", *_TEXT_COLUMNS):
        if name != "prompt_version":
            frame[name] = frame[name].astype("string")
    for name in ("prison_months", "probation_months", "fine_yuan", "cost_fee_yuan", "cost_collected_yuan"):
        frame[name] = pd.to_numeric(frame[name]).astype("Float64")
    for name in ("prompt_version", "n_issues"):
        frame[name] = frame[name].astype("Int64")
    return frame[CASE_COLUMNS]


def issues_table(extracted: list[Extracted]) -> pd.DataFrame:
    """One row per issue of any stage, keyed by case."""
    rows = [
        {
            "case_id": e.case.case_id,
            "source": e.case.source,
            "source_id": e.case.source_id,
            "case_kind": e.case.kind,
            **i.as_dict(),
        }
        for e in extracted
        for i in e.issues
    ]
    return pd.DataFrame(rows, columns=ISSUE_COLUMNS).astype("string")


# an LLM-field issue as the judge failure kind the stage's failure tally counts (flows/kit/judged.py): an answer
# that did not validate after the repair rounds is one the model gave but that could not be read
_ANSWER_FAILURES = {LLMIssue.CALL_FAILED.value: "call_failed", LLMIssue.INVALID.value: "unparsable"}


def answer_rows(cases: pd.DataFrame, issues: pd.DataFrame, model: str) -> pd.DataFrame:
    """One judged row (`judge`, `value`, `failure`, `error`) per LLM field asked of each case: value 1 when the
    field's answer validated, else the failure (`call_failed`, or `unparsable` for an `invalid` issue)."""
    llm = issues[(issues.stage == Stage.LLM.value) & issues.kind.isin(list(_ANSWER_FAILURES))]
    failed = {(r.case_id, r.field): (_ANSWER_FAILURES[r.kind], r.detail) for r in llm.itertuples(index=False)}
    rows = []
    for case_id, kind in zip(cases.case_id, cases.kind, strict=True):
        for name in FIELDS[kind]:
            failure, error = failed.get((case_id, name), (None, ""))
            rows.append({"judge": model, "value": None if failure else 1.0, "failure": failure, "error": error})
    return pd.DataFrame(rows, columns=["judge", "value", "failure", "error"])

"""The extraction report (`reports/extraction.md`) and its long-format CSV twin, from the DuckDB query results."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from steps.reports.long import long_columns
from steps.reports.prose import render_template

GROUPS = {
    ("criminal", "judgment"): "criminal judgments",
    ("criminal", "ruling"): "criminal rulings",
    ("civil", "judgment"): "civil judgments",
    ("civil", "ruling"): "civil rulings",
}
SCORE_COLUMNS = ["n_docs", "precision", "recall", "f1", "tp", "fp", "fn"]
FIXTURE_FIELDS = ["charges", "prison_months", "probation_months", "fine_yuan"]
TEMPLATES = Path(__file__).parent / "templates"


@dataclass(frozen=True)
class ExtractionReport:
    model: str
    scripted: bool
    parser_version: str
    prompt_version: int
    run_id: str
    cases: dict[str, int]  # kind -> rows in cases.parquet
    limit: int | None
    coverage: pd.DataFrame  # extraction_coverage.sql
    issue_counts: pd.DataFrame  # extraction_issue_counts.sql
    model_issues: pd.DataFrame  # extraction_model_issues.sql
    parser_issues: pd.DataFrame  # extraction_parser_issues.sql
    usage: pd.DataFrame | None  # data_model_usage.sql over usage.parquet
    figures: dict  # steps.j1.extract.evaluate.figures


def _scores(by_half: dict[str, dict], label: str | None = None) -> pd.DataFrame:
    rows = [
        {**({"labels": label} if label else {}), "half": h, **{k: v[k] for k in SCORE_COLUMNS}}
        for h, v in by_half.items()
    ]
    return pd.DataFrame(rows)


def coverage_table(coverage: pd.DataFrame) -> pd.DataFrame:
    """One row per field; per group of cases 'share% (filled/n)', with the failed calls and the unparsable answers
    when there are any."""
    if coverage.empty:
        return pd.DataFrame(columns=["field", "source"])
    cells = coverage.assign(
        group=[GROUPS[(k, d)] for k, d in zip(coverage["kind"], coverage["doc"], strict=True)],
        cell=[
            f"{s:.1%} ({f}/{n})" + (f", {x} failed" if x else "") + (f", {u} unparsable" if u else "")
            for s, f, n, x, u in zip(
                coverage["share"],
                coverage["filled"],
                coverage["n"],
                coverage["failed"],
                _unparsable(coverage),
                strict=True,
            )
        ],
    )
    wide = cells.pivot_table(index=["position", "field", "source"], columns="group", values="cell", aggfunc="first")
    wide = wide.reindex(columns=[g for g in GROUPS.values() if g in wide.columns]).reset_index()
    return wide.drop(columns="position").fillna("—").reset_index(drop=True)


def _unparsable(coverage: pd.DataFrame) -> pd.Series:
    return coverage["unparsable"] if "unparsable" in coverage else pd.Series(0, index=coverage.index)


def accuracy_markdown(f: dict) -> str:
    """The three accuracy figures of the parser (`steps.j1.extract.evaluate.figures`) as Markdown."""
    fixture = pd.DataFrame([{"half": h, **v} for h, v in f["verdict_fixture"].items()])
    return render_template(
        TEMPLATES,
        "extraction_accuracy.md.j2",
        criminal=_scores(f["criminal_articles"]),
        civil=pd.concat([_scores(f["civil_pairs"][k], k) for k in ("raw", "label_space")]),
        fixture=fixture[["half", "n_defendants", *FIXTURE_FIELDS]],
    ).rstrip("\n")


def render_extraction(r: ExtractionReport) -> str:
    """The Markdown report (templates/extraction.md.j2)."""
    return render_template(
        TEMPLATES,
        "extraction.md.j2",
        r=r,
        accuracy=accuracy_markdown(r.figures),
        coverage=coverage_table(r.coverage),
    )


def extraction_long(r: ExtractionReport) -> pd.DataFrame:
    """The CSV twin: accuracy, coverage and issue counts in the project's long format."""
    base = {"benchmark": "extraction", "judge": "", "source": "ours"}
    rows = []
    for table, by_half in (
        ("criminal_articles", r.figures["criminal_articles"]),
        ("civil_pairs_raw", r.figures["civil_pairs"]["raw"]),
        ("civil_pairs_label_space", r.figures["civil_pairs"]["label_space"]),
    ):
        for half, s in by_half.items():
            rows += [
                {
                    **base,
                    "table": table,
                    "agent": "parser",
                    "scope": half,
                    "metric": m,
                    "value": s[m],
                    "n": s["n_docs"],
                    "proxy": False,
                }
                for m in ("precision", "recall", "f1")
            ]
    for half, s in r.figures["verdict_fixture"].items():
        rows += [
            {
                **base,
                "table": "verdict_fixture",
                "agent": "parser",
                "scope": half,
                "metric": m,
                "value": s[m],
                "n": s["n_defendants"],
                "proxy": False,
            }
            for m in FIXTURE_FIELDS
        ]
    for c in r.coverage.itertuples(index=False):
        llm = c.source == "llm"
        rows.append(
            {
                **base,
                "table": "coverage",
                "agent": r.model if llm else "parser",
                "scope": GROUPS[(c.kind, c.doc)],
                "metric": c.field,
                "value": c.share,
                "n": c.n,
                "n_unparsable": int(getattr(c, "unparsable", 0)) if llm else None,
                "proxy": llm and r.scripted,
            }
        )
    for c in r.issue_counts.itertuples(index=False):
        rows.append(
            {
                **base,
                "table": "issues",
                "agent": "parser" if c.stage == "parser" else r.model,
                "scope": c.case_kind,
                "metric": f"{c.stage}/{c.kind}",
                "value": c.issues,
                "n": c.cases,
                "proxy": c.stage != "parser" and r.scripted,
            }
        )
    out = pd.DataFrame(rows, columns=long_columns(with_failed=False, with_unparsable=True))
    return out.assign(n_unparsable=out.n_unparsable.astype("Int64"))

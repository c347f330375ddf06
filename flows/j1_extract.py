"""Stage `j1_extract`: judgments → legal elements, one row per case, and the extraction report.

dvc.yaml → this flow → steps.j1.extract (the parser; the LLM fields through steps.llm with the environment model;
the cross-check) → steps/sql/extraction_*.sql (DuckDB) → steps.j1.extract.report. Writes
data/j1/{cases,extraction_issues,extract_usage}.parquet and reports/extraction.{md,csv}. `extract_file` runs the
same extraction on any JuDGE- or C3RD-shaped file; `evaluate` returns the parser's accuracy figures.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import duckdb
import pandas as pd
from prefect import flow, task
from prefect.cache_policies import NO_CACHE

import steps.j1.extract.scripted  # noqa: F401  (registers the scripted extraction policy)
from flows.kit.config import PARAMS_FILE, Params, load_params
from flows.kit.models import check_calls, model_session, usage_frame
from flows.kit.monitor import publish_report
from flows.kit.paths import PATHS, Paths
from flows.kit.progress import counter
from flows.kit.stage import main, stage_flow
from steps.j1.extract.evaluate import figures
from steps.j1.extract.files import Format, read_judgments
from steps.j1.extract.inputs import CaseInput, case_inputs
from steps.j1.extract.prompts import PROMPT_VERSION
from steps.j1.extract.records import answer_rows, cases_table, extract_checked, issues_table, provenance_of
from steps.j1.extract.report import ExtractionReport, extraction_long, render_extraction
from steps.j1.extract.schemas import CASES_ARROW_TYPES, Cases, ExtractionIssues
from steps.j1.extract.sql import QUERIES
from steps.j1.extract.version import parser_version
from steps.j1.params import J1Params
from steps.j1.sources import JudgmentsCivil, JudgmentsCriminal
from steps.llm import ModelConfig
from steps.reports.long import long_csv
from steps.runs import run_id, run_spec
from steps.schemas import validate
from steps.sql import register_parquet, run_query
from steps.tables import read_table, to_arrow, write_parquet_atomic, write_text_atomic

USAGE = "extract_usage.parquet"  # in data/j1/
FIXTURE = Path("tests/j1/extract/fixtures/verdicts.json")  # the hand-checked verdicts (see its `_about`)


def extraction_model(params: Params) -> ModelConfig:
    """`j1.extract.model`, or the environment model when it is not set."""
    return params.section(J1Params).extract.resolve_model(params.environment_model())


@task(cache_policy=NO_CACHE)
def parse(criminal: pd.DataFrame, civil: pd.DataFrame, limit: int | None = None) -> list[CaseInput]:
    return case_inputs(criminal, civil, limit)


@task(cache_policy=NO_CACHE)
def extract_cases(cases: list[CaseInput], params: Params, usage_out: Path | None) -> tuple[pd.DataFrame, ...]:
    """LLM fields for every case, cross-checked; returns the validated cases and issues tables."""
    model, attempts = extraction_model(params), params.section(J1Params).extract.max_attempts
    version = parser_version()
    spec = run_spec(
        model,
        "extract",
        prompt_version=PROMPT_VERSION,
        parser_version=version,
        max_attempts=attempts,
    )
    provenance = provenance_of(model, run_id(spec))
    with model_session(params, provenance.run_id, usage=usage_out) as session:
        with counter(f"extract ({model.model})", len(cases)) as advance:
            extracted = asyncio.run(extract_checked(session.door, model, cases, max_attempts=attempts, on_done=advance))
        frames = (
            validate(cases_table(extracted, provenance), Cases, table="cases"),
            validate(issues_table(extracted), ExtractionIssues, table="extraction_issues"),
        )
        usage = usage_frame(session.door)
    return (*frames, usage)


@task(cache_policy=NO_CACHE)
def summarise(out_dir: Path) -> dict[str, pd.DataFrame]:
    tables = {"cases": out_dir / "cases.parquet", "extraction_issues": out_dir / "extraction_issues.parquet"}
    with duckdb.connect() as con:
        register_parquet(con, tables)
        queries = [
            "extraction_coverage",
            "extraction_issue_counts",
            "extraction_model_issues",
            "extraction_parser_issues",
        ]
        out = {name: QUERIES.run(con, name) for name in queries}
        if (out_dir / USAGE).is_file():
            register_parquet(con, {"model_usage": out_dir / USAGE})
            out["usage"] = run_query(con, "data_model_usage")
    return out


def _summary(cases: pd.DataFrame, issues: pd.DataFrame) -> str:
    kinds = cases["kind"].value_counts()
    stages = issues["stage"].value_counts()
    failed = int(issues["kind"].isin(["call_failed", "invalid"]).sum())
    return (
        f"{len(cases):,} cases ({kinds.get('criminal', 0)} criminal, {kinds.get('civil', 0)} civil); "
        f"{len(issues):,} issues (parser {stages.get('parser', 0):,}, llm {stages.get('llm', 0):,}, "
        f"crosscheck {stages.get('crosscheck', 0):,}); {failed} failed model answers; "
        f"LLM fields from {cases['llm_fields_source'].iloc[0] if len(cases) else '-'}"
    )


@stage_flow
def j1_extract(params_file: Path = PARAMS_FILE, paths: Paths = PATHS, fixture: Path = FIXTURE) -> str:
    """Extract every judgment of the interim tables; write the tables, then the report."""
    params = load_params(params_file)
    out_dir, report = paths.shared("j1"), paths.reports / "extraction.md"
    criminal = read_table(paths.interim / "judgments_criminal.parquet", JudgmentsCriminal)
    civil = read_table(paths.interim / "judgments_civil.parquet", JudgmentsCivil)
    limit = params.section(J1Params).extract.limit
    cases = parse(criminal, civil, limit)
    cases_df, issues_df, _ = extract_cases(cases, params, out_dir / USAGE)
    write_parquet_atomic(to_arrow(cases_df, CASES_ARROW_TYPES), out_dir / "cases.parquet")
    write_parquet_atomic(to_arrow(issues_df), out_dir / "extraction_issues.parquet")
    model = extraction_model(params)
    queries = summarise(out_dir)
    r = ExtractionReport(
        model.model,
        model.is_scripted,
        str(cases_df["parser_version"].iloc[0]),
        PROMPT_VERSION,
        str(cases_df["run_id"].iloc[0]),
        cases_df["kind"].value_counts().to_dict(),
        limit,
        queries["extraction_coverage"],
        queries["extraction_issue_counts"],
        queries["extraction_model_issues"],
        queries["extraction_parser_issues"],
        queries.get("usage"),
        evaluate(paths.interim, fixture, show=False),
    )
    write_text_atomic(report, render_extraction(r))
    csv = long_csv(extraction_long(r), table="reports/extraction.csv", with_failed=False, with_unparsable=True)
    write_text_atomic(report.with_suffix(".csv"), csv)
    publish_report(report, "Legal elements extracted from the judgments: coverage, disagreements, parser accuracy")
    answers = answer_rows(cases_df, issues_df, model.model)
    answers.attrs["source"] = f"{out_dir / 'extraction_issues.parquet'} with kind invalid"
    check_calls(params, out_dir / USAGE, judged=[answers])
    return _summary(cases_df, issues_df) + f"; {report} written"


@flow(name="extract_file")
def extract_file(
    input: Path,
    fmt: Format,
    out: Path,
    params_file: Path = PARAMS_FILE,
    limit: int | None = None,
    usage_out: Path | None = None,
) -> str:
    """Extract a JuDGE JSON Lines (fmt 'judge') or C3RD mini JSON file (fmt 'c3rd') into `out` (cases columns)."""
    params = load_params(params_file)
    frame = read_judgments(Path(input), fmt)
    cases = parse(frame, frame.iloc[0:0], limit) if fmt == "judge" else parse(frame.iloc[0:0], frame, limit)
    cases_df, issues_df, usage = extract_cases(cases, params, usage_out)
    write_parquet_atomic(to_arrow(cases_df, CASES_ARROW_TYPES), Path(out))
    judged = [answer_rows(cases_df, issues_df, extraction_model(params).model)]
    check_calls(params, Path(usage_out) if usage_out is not None else usage, judged=judged)
    return _summary(cases_df, issues_df) + f"; {out} written"


def evaluate(interim_dir: Path = PATHS.interim, fixture: Path = FIXTURE, *, show: bool = True) -> dict:
    """The parser's accuracy figures (criminal articles, civil pairs raw and label_space, verdict fixture)."""
    criminal = read_table(interim_dir / "judgments_criminal.parquet", JudgmentsCriminal)
    civil = read_table(interim_dir / "judgments_civil.parquet", JudgmentsCivil)
    if not fixture.is_file():
        raise FileNotFoundError(f"{fixture}: verdict fixture not found")
    result = figures(criminal, civil, json.loads(fixture.read_text(encoding="utf-8")))
    if show:
        from steps.j1.extract.report import accuracy_markdown

        print(accuracy_markdown(result))
    return result


if __name__ == "__main__":
    main(j1_extract)

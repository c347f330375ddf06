"""`jurisflow extract judgments` and `jurisflow extract --evaluate` (CLI glue, not a stage): stage `j1_extract`'s
extraction (steps/j1/stages.py) on any JuDGE- or C3RD-shaped file, and the parser's accuracy figures."""

from __future__ import annotations

from pathlib import Path

from prefect import flow

from flows.kit.config import PARAMS_FILE, load_params
from flows.kit.context import FlowContext
from flows.kit.models import usage_frame
from flows.kit.paths import PATHS
from steps.j1.extract.files import Format, read_judgments
from steps.j1.extract.records import answer_rows
from steps.j1.extract.schemas import CASES_ARROW_TYPES
from steps.j1.stages import FIXTURE, extract_cases, extract_summary, extraction_model, parse, parser_figures
from steps.tables import read_table, to_arrow, write_parquet_atomic


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
    ctx = FlowContext(params, PATHS)
    frame = read_judgments(Path(input), fmt)
    parsed = ctx.task(parse)
    cases = parsed(frame, frame.iloc[0:0], limit) if fmt == "judge" else parsed(frame.iloc[0:0], frame, limit)
    cases_df, issues_df, session = ctx.task(extract_cases)(ctx, cases, usage_out)
    write_parquet_atomic(to_arrow(cases_df, CASES_ARROW_TYPES), Path(out))
    judged = [answer_rows(cases_df, issues_df, extraction_model(params).model)]
    usage = Path(usage_out) if usage_out is not None else usage_frame(session.door)  # type: ignore[arg-type]
    ctx.check_calls(usage, judged=judged)
    return extract_summary(cases_df, issues_df) + f"; {out} written"


def evaluate(interim_dir: Path = PATHS.interim, fixture: Path = FIXTURE, *, show: bool = True) -> dict:
    """The parser's accuracy figures (criminal articles, civil pairs raw and label_space, verdict fixture)."""
    from steps.j1.sources import JudgmentsCivil, JudgmentsCriminal

    criminal = read_table(interim_dir / "judgments_criminal.parquet", JudgmentsCriminal)
    civil = read_table(interim_dir / "judgments_civil.parquet", JudgmentsCivil)
    result = parser_figures(criminal, civil, fixture)
    if show:
        from steps.j1.extract.report import accuracy_markdown

        print(accuracy_markdown(result))
    return result

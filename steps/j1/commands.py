"""J1's own commands (its registration's `commands`): the extraction of stage `j1_extract` on any JuDGE- or
C3RD-shaped judgment file (`jurisflow j1 extract-judgments`), and the rule parser's accuracy figures
(`jurisflow j1 parser-accuracy`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from steps.j1.extract.files import Format
    from steps.stages import StageContext


def extract_judgments(
    ctx: StageContext,
    input: Annotated[Path, typer.Option("--input", help="a JuDGE-style JSON Lines file or a C3RD mini JSON file")],
    fmt: Annotated[str, typer.Option("--format", help="judge or c3rd")],
    out: Annotated[Path, typer.Option("--out", help="Parquet file to write (the columns of cases.parquet)")],
    limit: Annotated[int | None, typer.Option(help="only the first N judgments")] = None,
    usage: Annotated[
        Path | None, typer.Option(help="where to write the calls' usage table (default: none written)")
    ] = None,
) -> list[str]:
    """Extract the legal elements of any judgment file (parser + the extraction model, cross-checked)."""
    from steps.j1.extract.files import read_judgments
    from steps.j1.extract.records import answer_rows
    from steps.j1.extract.schemas import CASES_ARROW_TYPES
    from steps.j1.stages import extract_cases, extract_summary, extraction_model, parse
    from steps.tables import to_arrow, write_parquet_atomic

    if fmt not in ("judge", "c3rd"):
        raise ValueError(f"unknown format {fmt!r}; expected judge or c3rd")
    form: Format = "judge" if fmt == "judge" else "c3rd"
    frame = read_judgments(ctx.input_path(input), form)
    parsed = ctx.task(parse)
    cases = parsed(frame, frame.iloc[0:0], limit) if form == "judge" else parsed(frame.iloc[0:0], frame, limit)
    cases_df, issues_df, session = ctx.task(extract_cases)(ctx, cases, usage)
    write_parquet_atomic(to_arrow(cases_df, CASES_ARROW_TYPES), ctx.output_path(out))
    judged = [answer_rows(cases_df, issues_df, extraction_model(ctx.params).model)]
    ctx.check_calls(usage if usage is not None else session.usage(), judged=judged)
    return [extract_summary(cases_df, issues_df) + f"; {out} written"]


def parser_accuracy(ctx: StageContext) -> list[str]:
    """The rule parser's accuracy figures on the mirrored judgments (criminal articles, civil pairs raw and
    label_space, the verdict fixture), as Markdown."""
    from steps.j1.extract.report import accuracy_markdown

    return [accuracy_markdown(parser_accuracy_figures(ctx))]


def parser_accuracy_figures(ctx: StageContext) -> dict:
    from steps.j1.sources import JudgmentsCivil, JudgmentsCriminal
    from steps.j1.stages import FIXTURE, parser_figures

    criminal = ctx.read_table(ctx.paths.interim / "judgments_criminal.parquet", JudgmentsCriminal)
    civil = ctx.read_table(ctx.paths.interim / "judgments_civil.parquet", JudgmentsCivil)
    return parser_figures(criminal, civil, ctx.input_path(FIXTURE))

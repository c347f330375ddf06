"""The `jurisflow` command: run any stage's flow, plus utilities for users."""

from __future__ import annotations

import typer

app = typer.Typer(
    no_args_is_help=True, add_completion=False, help="jurisflow: Chinese legal LLM benchmarks, reproducibly."
)


@app.command()
def ingest() -> None:
    """Fetch and verify every pinned source file and write data/interim/*.parquet (stage `ingest`)."""
    from flows.ingest import ingest as flow
    from flows.stage import run_stage

    raise typer.Exit(run_stage("ingest", flow))


@app.command("data-report")
def data_report() -> None:
    """Write the data card reports/data.md (stage `data_report`)."""
    from flows.data_report import data_report as flow
    from flows.stage import run_stage

    raise typer.Exit(run_stage("data_report", flow))


if __name__ == "__main__":
    app()

"""MILE's own commands (its registration's `commands`): `jurisflow mile export-sft RUN --out FILE.jsonl` writes a
MILE/MASER run's dialogues as chat-format SFT data, from the lawyer's point of view. RUN is an agent name (its run
directory data/mile/runs/<agent>) or the path of a run directory; run.json and dialogues.parquet are read
(validated) and the JSON Lines file is written atomically (steps/mile/export.py)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from steps.stages import StageContext


def run_directory(ctx: StageContext, run: str) -> Path:
    from steps.paths import DIALOGUES

    runs = ctx.paths.runs("mile")
    for candidate in (Path(run), runs / run):
        if ctx.exists(candidate / DIALOGUES):
            return candidate
    raise FileNotFoundError(f"{run}: no MILE run there or at {runs / run} (run `dvc repro mile_simulate` first)")


def export_sft(
    ctx: StageContext,
    run: Annotated[str, typer.Argument(help="an agent name (data/mile/runs/<agent>) or a MILE run directory")],
    out: Annotated[Path, typer.Option("--out", help="JSON Lines file to write (OpenAI chat-messages format)")],
) -> list[str]:
    """Write a MILE/MASER run's dialogues as chat-format SFT data, from the lawyer's point of view."""
    from steps.mile.export import sft_records, to_jsonl
    from steps.mile.schemas import MileDialogues
    from steps.paths import DIALOGUES
    from steps.runs import read_run

    directory = run_directory(ctx, run)
    spec = dict(read_run(ctx.input_path(directory)).spec)
    dialogues = ctx.read_table(directory / DIALOGUES, MileDialogues)
    export = sft_records(dialogues, spec)
    ctx.write_text(out, to_jsonl(export.records))
    skipped = ", ".join(f"{n} {why}" for why, n in sorted(export.skipped.items())) or "none"
    return [f"{out}: {len(export.records)} dialogues from run {spec.get('run_id')} ({directory}); skipped: {skipped}"]

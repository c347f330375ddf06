"""`jurisflow export sft RUN --out FILE.jsonl`: a MILE/MASER run's dialogues as chat-format SFT data.

RUN is an agent name (its run directory data/mile/runs/<agent>) or the path of a run directory. Reads run.json
and dialogues.parquet (validated) and writes the JSON Lines file atomically (steps.mile.export).
"""

from __future__ import annotations

from pathlib import Path

from flows.kit.paths import DIALOGUES, PATHS, Paths
from steps.mile.export import sft_records, to_jsonl
from steps.mile.schemas import MileDialogues
from steps.runs import read_run
from steps.tables import read_table, write_text_atomic


def run_directory(run: str, paths: Paths = PATHS) -> Path:
    runs = paths.runs("mile")
    for candidate in (Path(run), runs / run):
        if (candidate / DIALOGUES).is_file():
            return candidate
    raise FileNotFoundError(f"{run}: no MILE run there or at {runs / run} (run `dvc repro mile_simulate` first)")


def export_sft(run: str, out: Path, paths: Paths = PATHS) -> str:
    """Write the SFT file; returns a one-line summary."""
    directory = run_directory(run, paths)
    spec = dict(read_run(directory).spec)
    dialogues = read_table(directory / DIALOGUES, MileDialogues, table="mile_dialogues")
    export = sft_records(dialogues, spec)
    write_text_atomic(out, to_jsonl(export.records))
    skipped = ", ".join(f"{n} {why}" for why, n in sorted(export.skipped.items())) or "none"
    return f"{out}: {len(export.records)} dialogues from run {spec.get('run_id')} ({directory}); skipped: {skipped}"

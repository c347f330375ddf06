"""LawBench's own commands (its registration's `commands`): `jurisflow lawbench score` scores any LawBench-style
prediction folder into results.csv's layout with our scorers, task 2-1 with its pinned lexicon files (also what
perf/lawbench_scoring.py scores with)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from steps.lawbench.metrics.proofread import LexiconFiles
    from steps.params import Params
    from steps.paths import Paths
    from steps.stages import StageContext


def pinned_lexicon(params: Params, paths: Paths) -> LexiconFiles:
    """Task 2-1's lexicon files for ad-hoc scoring, fetched and verified like every pinned source (mirror first,
    then the upstream download); a missing file or a wrong checksum is the one-line SourceError ingest gives."""
    from steps.lawbench.metrics.proofread import LEXICON_TABLES, LexiconFiles
    from steps.sources import fetch, http_download, load_manifest

    sources = params.sources
    manifest = load_manifest(paths.manifest)

    def pinned(arg: str) -> Path:
        (src,) = manifest.for_dataset(LEXICON_TABLES[arg].removesuffix(".parquet"))
        download = http_download(sources.timeout_s) if sources.download else None
        return fetch(
            src,
            mirror=sources.mirror_dir(),
            download_dir=paths.downloads,
            upstream_url=manifest.upstream_url,
            download=download,
        )

    return LexiconFiles(cilin_path=pinned("cilin_path"), confusion_path=pinned("confusion_path"))


def score(
    ctx: StageContext,
    predictions: Annotated[
        Path,
        typer.Option(
            "--predictions",
            help="a folder laid out like LawBench's predictions/<setting>/: one sub-folder per model, "
            "<task>.json inside",
        ),
    ],
    out: Annotated[Path, typer.Option("--out", help="CSV to write: task,model_name,score,abstention_rate")],
    workers: Annotated[int, typer.Option(help="worker processes (groups of one model and task run in parallel)")] = 2,
) -> list[str]:
    """Score any LawBench-style prediction folder into LawBench's results.csv layout.

    A folder holding zero_shot/ and one_shot/ sub-folders writes one CSV per setting (OUT's name + _<setting>).
    """
    from steps.lawbench.metrics import read_prediction_tree, results_table, score_predictions
    from steps.lawbench.metrics.tasks import SETTINGS

    if not ctx.exists(predictions) or not predictions.is_dir():
        raise FileNotFoundError(f"{predictions}: no such folder")
    frame, skipped = read_prediction_tree(predictions)
    lines = [f"skipped {s}: not a LawBench task file" for s in skipped]
    if frame.empty:
        raise ValueError(f"{predictions}: no <model>/<task>.json prediction files found")
    scores = score_predictions(frame, workers=workers, **pinned_lexicon(ctx.params, ctx.paths))
    settings = sorted(set(scores.setting), key=lambda s: SETTINGS.index(s) if s in SETTINGS else 99)
    for setting in settings:
        target = out if len(settings) == 1 else out.with_name(f"{out.stem}_{setting}{out.suffix}")
        table = results_table(scores, setting)
        ctx.write_text(target, table.to_csv(index=False, lineterminator="\n"))
        lines.append(f"{target}: {len(table)} (model, task) rows, {table.model_name.nunique()} models, {setting}")
    return lines

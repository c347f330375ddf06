"""`jurisflow lawbench score` (CLI glue, not a stage): score any LawBench-style prediction folder into
results.csv's layout with our scorers, task 2-1 with its pinned lexicon files (also perf/lawbench_scoring.py's)."""

from __future__ import annotations

from pathlib import Path

from flows.kit.config import MANIFEST_FILE, PARAMS_FILE, load_params
from flows.kit.paths import PATHS
from steps.lawbench.metrics import score_predictions
from steps.lawbench.metrics.proofread import LEXICON_TABLES, LexiconFiles
from steps.tables import write_text_atomic


def pinned_lexicon(params_file: Path = PARAMS_FILE, manifest_file: Path = MANIFEST_FILE) -> LexiconFiles:
    """Task 2-1's lexicon files for ad-hoc scoring, fetched and verified like every pinned source (mirror first,
    then the upstream download); a missing file or a wrong checksum is the one-line SourceError ingest gives."""
    from steps.sources import fetch, http_download, load_manifest

    sources = load_params(params_file).sources
    manifest = load_manifest(manifest_file)

    def pinned(arg: str) -> Path:
        (src,) = manifest.for_dataset(LEXICON_TABLES[arg].removesuffix(".parquet"))
        download = http_download(sources.timeout_s) if sources.download else None
        return fetch(
            src,
            mirror=sources.mirror_dir(),
            download_dir=PATHS.downloads,
            upstream_url=manifest.upstream_url,
            download=download,
        )

    return LexiconFiles(cilin_path=pinned("cilin_path"), confusion_path=pinned("confusion_path"))


def score_folder(predictions: Path, out: Path, *, workers: int = 2) -> list[str]:
    """Score a LawBench-style folder into results.csv layout; returns what was written and skipped.

    A single setting folder writes `out`; a folder with zero_shot/ and one_shot/ sub-folders writes one file
    per setting, named `out`'s stem + `_<setting>`.
    """
    from steps.lawbench.metrics import read_prediction_tree, results_table
    from steps.lawbench.metrics.tasks import SETTINGS

    if not predictions.is_dir():
        raise FileNotFoundError(f"{predictions}: no such folder")
    frame, skipped = read_prediction_tree(predictions)
    lines = [f"skipped {s}: not a LawBench task file" for s in skipped]
    if frame.empty:
        raise ValueError(f"{predictions}: no <model>/<task>.json prediction files found")
    scores = score_predictions(frame, workers=workers, **pinned_lexicon())
    settings = sorted(set(scores.setting), key=lambda s: SETTINGS.index(s) if s in SETTINGS else 99)
    for setting in settings:
        target = out if len(settings) == 1 else out.with_name(f"{out.stem}_{setting}{out.suffix}")
        table = results_table(scores, setting)
        write_text_atomic(target, table.to_csv(index=False, lineterminator="\n"))
        lines.append(f"{target}: {len(table)} (model, task) rows, {table.model_name.nunique()} models, {setting}")
    return lines

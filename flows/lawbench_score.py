"""Stage `lawbench_score`: score every published prediction with our scorers and compare with results.csv.

dvc.yaml → this flow → steps.lawbench.metrics. Writes data/lawbench/published_scores.parquet; the
comparison with the published numbers is in the summary line and in the reports.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from prefect import task
from prefect.cache_policies import NO_CACHE

from flows.kit.config import MANIFEST_FILE, PARAMS_FILE, load_params
from flows.kit.paths import PATHS, Paths
from flows.kit.stage import main, stage_flow
from steps.lawbench.metrics import score_predictions
from steps.lawbench.metrics.proofread import LEXICON_TABLES, LexiconFiles, lexicon_tables
from steps.lawbench.schemas import LawBenchScores
from steps.lawbench.sources import LawBenchPredictions, LawBenchPublished
from steps.tables import read_table, write_table, write_text_atomic

PUBLISHED_SCORES = "published_scores.parquet"  # in data/lawbench/
TOLERANCE = 1e-6


@task(cache_policy=NO_CACHE)
def score_published(predictions: pd.DataFrame, proofread_paths: LexiconFiles) -> pd.DataFrame:
    scores = score_predictions(predictions, **proofread_paths).rename(columns={"model": "agent"})
    return scores.assign(n_failed=0, proxy=False, run_id="published")[list(LawBenchScores.to_schema().columns)]


def compare(scores: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """Join ours and published by (setting, model, task); one row per cell with both differences."""
    merged = scores.merge(
        published.rename(columns={"model": "agent"}),
        on=["setting", "agent", "task"],
        how="inner",
        suffixes=("", "_published"),
        validate="one_to_one",
    )
    merged["score_diff"] = (merged.score - merged.score_published).abs()
    merged["abstention_diff"] = (merged.abstention_rate - merged.abstention_rate_published).abs()
    return merged


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


@stage_flow
def lawbench_score(paths: Paths = PATHS) -> str:
    """Score every published prediction with our scorers and compare with results.csv."""
    proofread_paths = lexicon_tables(paths.interim)
    predictions = read_table(paths.interim / "lawbench_predictions.parquet", LawBenchPredictions)
    published = read_table(paths.interim / "lawbench_published.parquet", LawBenchPublished)
    scores: pd.DataFrame = score_published(predictions, proofread_paths)
    write_table(scores, paths.shared("lawbench") / PUBLISHED_SCORES, LawBenchScores, table="lawbench_scores")
    cells = compare(scores, published)
    off = cells[(cells.score_diff > TOLERANCE) | (cells.abstention_diff > TOLERANCE)]
    return (
        f"{len(scores)} (setting, model, task) cells scored; {len(cells) - len(off)} of {len(cells)} match "
        f"results.csv within {TOLERANCE:g} (max |Δscore| {cells.score_diff.max():.2g}, "
        f"max |Δabstention| {cells.abstention_diff.max():.2g}); {len(off)} differ"
    )


if __name__ == "__main__":
    main(lawbench_score)

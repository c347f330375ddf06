"""Stage `ingest`: fetch every pinned source file, verify its sha256, and write the interim tables.

dvc.yaml → this flow → steps.sources (fetch, verify) → each benchmark's steps/<benchmark>/sources.py (its tables'
loaders and schemas, found by steps.sources.tables). All tables are built and validated before any is written, so
a failure leaves no partial output.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pandas as pd
from prefect import task
from prefect.cache_policies import NO_CACHE

from flows.kit.config import MANIFEST_FILE, PARAMS_FILE, SourcesParams, load_params
from flows.kit.paths import PATHS, Paths
from flows.kit.progress import track
from flows.kit.stage import main, stage_flow
from steps.schemas import validate
from steps.sources import Fetched, Manifest, fetch, http_download, load_manifest
from steps.sources.pinned import check_rows
from steps.sources.tables import interim_tables
from steps.tables import write_table


@task(cache_policy=NO_CACHE)
def fetch_sources(manifest: Manifest, params: SourcesParams, downloads: Path) -> list[Fetched]:
    """Resolve every manifest file to a verified local copy (mirror first, then upstream into `downloads`)
    holding its pinned rows."""
    mirror = params.mirror_dir()
    download = http_download(params.timeout_s) if params.download else None
    fetched = []
    for src in track(manifest.files, "verify sources"):
        local = fetch(src, mirror=mirror, download_dir=downloads, upstream_url=manifest.upstream_url, download=download)
        check_rows(src, local)
        fetched.append(Fetched(src, local))
    return fetched


@task(cache_policy=NO_CACHE)
def build_table(name: str, files: list[Fetched]) -> pd.DataFrame:
    """Parse one dataset's files into its table and validate it against its schema."""
    table = interim_tables()[name]
    origin = ", ".join(sorted({f.source.path for f in files})[:3]) + (" …" if len(files) > 3 else "")
    return validate(table.load(files), table.schema, table=name, origin=origin)


@stage_flow
def ingest(paths: Paths = PATHS, manifest_file: Path = MANIFEST_FILE, params_file: Path = PARAMS_FILE) -> str:
    """Fetch, verify and normalise every pinned source into `data/interim/<table>.parquet`."""
    manifest = load_manifest(manifest_file)
    known = interim_tables()
    unknown = sorted({f.dataset for f in manifest.files} - set(known))
    if unknown:
        raise ValueError(f"{manifest_file}: dataset(s) without a loader: {', '.join(unknown)}")
    fetched = fetch_sources(manifest, load_params(params_file).sources, paths.downloads)
    by_dataset: dict[str, list[Fetched]] = {}
    for f in fetched:
        by_dataset.setdefault(f.source.dataset, []).append(f)
    tables: dict[str, pd.DataFrame] = {
        name: build_table(name, files) for name, files in track(sorted(by_dataset.items()), "parse tables")
    }
    for name, df in tables.items():
        arrow_types = dict(known[name].arrow_types)
        write_table(df, paths.interim / f"{name}.parquet", known[name].schema, table=name, arrow_types=arrow_types)
    origins = Counter("mirror" if paths.downloads not in f.local.parents else "download" for f in fetched)
    rows = sum(len(df) for df in tables.values())
    return (
        f"{len(tables)} tables written ({rows:,} rows) to {paths.interim}; {len(fetched)} files verified "
        f"({origins['mirror']} from the mirror, {origins['download']} downloaded); 0 failed"
    )


if __name__ == "__main__":
    main(ingest)

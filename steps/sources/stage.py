"""The kernel's stage `ingest` (declared in steps/pipeline.py): fetch every pinned source file, verify its sha256,
and write the interim tables. Takes its `StageContext` and returns its one-line summary.

The manifest (`ctx.paths.manifest`, sources.yaml) → steps.sources (fetch, verify) → each benchmark's
steps/<benchmark>/sources.py (its tables' loaders and schemas, found by steps.sources.tables). All tables are
built and validated before any is written, so a failure leaves no partial output.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pandas as pd

from steps.params import SourcesParams
from steps.schemas import validate
from steps.sources import Fetched, Manifest, fetch, http_download, load_manifest
from steps.sources.pinned import check_rows
from steps.sources.tables import interim_tables
from steps.stages import StageContext


def ingest(ctx: StageContext) -> str:
    """Fetch, verify and normalise every pinned source into `data/interim/<table>.parquet`."""
    manifest_file = ctx.paths.manifest
    manifest = load_manifest(ctx.input_path(manifest_file))
    known = interim_tables()
    unknown = sorted({f.dataset for f in manifest.files} - set(known))
    if unknown:
        raise ValueError(f"{manifest_file}: dataset(s) without a loader: {', '.join(unknown)}")
    downloads = ctx.output_path(ctx.paths.downloads)

    def fetch_sources(manifest: Manifest, params: SourcesParams, downloads: Path) -> list[Fetched]:
        """Every manifest file as a verified local copy (mirror first, then upstream into `downloads`) holding its
        pinned rows."""
        mirror = params.mirror_dir()
        download = http_download(params.timeout_s) if params.download else None
        fetched = []
        for src in ctx.track(manifest.files, "verify sources"):
            local = fetch(
                src, mirror=mirror, download_dir=downloads, upstream_url=manifest.upstream_url, download=download
            )
            check_rows(src, local)
            fetched.append(Fetched(src, local))
        return fetched

    fetched = ctx.task(fetch_sources)(manifest, ctx.params.sources, downloads)
    by_dataset: dict[str, list[Fetched]] = {}
    for f in fetched:
        by_dataset.setdefault(f.source.dataset, []).append(f)
    build = ctx.task(build_table)
    tables: dict[str, pd.DataFrame] = {
        name: build(name, files) for name, files in ctx.track(sorted(by_dataset.items()), "parse tables")
    }
    for name, df in tables.items():
        path = ctx.paths.interim / f"{name}.parquet"
        ctx.write_table(df, path, known[name].schema, table=name, arrow_types=dict(known[name].arrow_types))
    origins = Counter("mirror" if downloads not in f.local.parents else "download" for f in fetched)
    rows = sum(len(df) for df in tables.values())
    return (
        f"{len(tables)} tables written ({rows:,} rows) to {ctx.paths.interim}; {len(fetched)} files verified "
        f"({origins['mirror']} from the mirror, {origins['download']} downloaded); 0 failed"
    )


def build_table(name: str, files: list[Fetched]) -> pd.DataFrame:
    """Parse one dataset's files into its table and validate it against its schema."""
    table = interim_tables()[name]
    origin = ", ".join(sorted({f.source.path for f in files})[:3]) + (" …" if len(files) > 3 else "")
    return validate(table.load(files), table.schema, table=name, origin=origin)

"""Reading any judgment file laid out like the mirror's JuDGE JSON Lines or a C3RD mini JSON file.

The ingest loaders (`steps/j1/sources.py`) take pinned, verified files; a file given on the command line is
not pinned, so it is wrapped in a `SourceFile` that says so (repository `local`, no checksum). The loaders' own
checks still apply: a malformed line or a missing key ends the run with the file, the line and the rule broken.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pandas as pd

from steps.j1.sources import load_civil, load_criminal
from steps.sources import Fetched, SourceFile

Format = Literal["judge", "c3rd"]
DATASETS: dict[str, str] = {"judge": "judgments_criminal", "c3rd": "judgments_civil"}
LOADERS = {"judge": load_criminal, "c3rd": load_civil}


def read_judgments(path: Path, fmt: Format) -> pd.DataFrame:
    """The file's judgments as rows of the interim `judgments_criminal` (judge) or `judgments_civil` (c3rd) table."""
    if fmt not in DATASETS:
        raise ValueError(f"unknown format '{fmt}'; expected one of {', '.join(DATASETS)}")
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    dataset = DATASETS[fmt]
    local = SourceFile(
        path=path.name,
        repo="local",
        commit="",
        upstream_path=str(path),
        sha256="",
        bytes=path.stat().st_size,
        dataset=dataset,
        license="",
    )
    return LOADERS[fmt]([Fetched(local, path)])

"""The data card (`reports/data.md`): what was ingested, from which pinned commits, in what shape."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from steps.reports.prose import render_template
from steps.sources.pinned import Manifest
from steps.stats.power import RHO

GROUPING = 1000  # every integer from 1,000 up is written with thousands separators, as in the prose
TEMPLATES = Path(__file__).parent / "templates"


@dataclass(frozen=True)
class TableSection:
    table: str
    title: str
    rows: int
    summary: pd.DataFrame


@dataclass(frozen=True)
class RunsSection:
    """The runs across benchmarks: dialogues per benchmark and agent, judged rows per benchmark and table (None
    when there are none yet)."""

    dialogues: pd.DataFrame | None = None
    judged: pd.DataFrame | None = None


def sources_table(manifest: Manifest, rows: dict[str, int]) -> pd.DataFrame:
    """One row per interim table: files, upstream repository at its pinned commit, licence, rows."""
    records = []
    for dataset in sorted({f.dataset for f in manifest.files}):
        files = manifest.for_dataset(dataset)
        repos = sorted({(f.repo, f.commit, f.license) for f in files})
        derived = sum(1 for f in files if f.derivation)
        records.append(
            {
                "table": dataset,
                "rows": rows.get(dataset, 0),
                "files": len(files),
                "derived files": derived,
                "upstream @ commit": ", ".join(f"{r}@{c[:10]}" for r, c, _ in repos),
                "licence": ", ".join(sorted({lic for _, _, lic in repos})),
            }
        )
    return pd.DataFrame(records)


def render_data_card(
    manifest: Manifest,
    sections: list[TableSection],
    usage: TableSection | None = None,
    runs: RunsSection | None = None,
    power: pd.DataFrame | None = None,
    rho: float = RHO,
) -> str:
    """reports/data.md (templates/data.md.j2): the sources, one section per interim table, the model usage, the
    runs across benchmarks (templates/data_runs.md.j2), the smallest detectable differences (`power`, rows of
    `steps.stats.power.power_table` with a benchmark column; None: none) for the correlation `rho`
    (params.yaml `stats.rho`)."""
    rows = {s.table: s.rows for s in sections}
    return render_template(
        TEMPLATES,
        "data.md.j2",
        grouping=GROUPING,
        sources=sources_table(manifest, rows),
        derived=[f for f in manifest.files if f.derivation],
        sections=sections,
        usage=usage,
        runs=runs or RunsSection(),
        power=power,
        rho=rho,
        requests=int(usage.summary.requests.sum()) if usage is not None and len(usage.summary) else 0,
    )


def runs_section(runs: RunsSection) -> str:
    """The section on the runs ("" when there are none): one table of dialogues and one of judged rows, each
    spanning the benchmarks."""
    return render_template(TEMPLATES, "data_runs.md.j2", grouping=GROUPING, runs=runs)

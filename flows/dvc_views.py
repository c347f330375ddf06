"""Writing a benchmark's DVC metrics and plot tables beside its report (steps/reports/dvc_views.py decides what
they hold, from the benchmark's registration). Each report stage calls `write_dvc_views` with its registration once
its CSV twin is written, and dvc.yaml declares the files as the stage's `metrics:` and as the data of the top-level
`plots:`."""

from __future__ import annotations

import json
from pathlib import Path

from flows.kit.tables import write_text_atomic
from steps.registry import Benchmark
from steps.reports.dvc_views import headline_metrics, plot_tables, read_long_csv


def write_dvc_views(benchmark: Benchmark, csv_path: Path, agents: list[str], reports: Path) -> list[Path]:
    """reports/metrics/<benchmark>.json and reports/plots/<name>.csv from the CSV twin at `csv_path`."""
    long = read_long_csv(csv_path)
    metrics = reports / "metrics" / f"{benchmark.name}.json"
    write_text_atomic(
        metrics, json.dumps(headline_metrics(benchmark, long, agents), indent=2, ensure_ascii=False) + "\n"
    )
    written = [metrics]
    for name, frame in plot_tables(benchmark, long, agents).items():
        path = reports / "plots" / f"{name}.csv"
        write_text_atomic(path, frame.to_csv(index=False, lineterminator="\n"))
        written.append(path)
    return written

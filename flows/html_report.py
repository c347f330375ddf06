"""Stage `html_report`: the static HTML report, one page per benchmark with plots and a transcript viewer.

dvc.yaml → this flow → steps.reports.html (pages, tables, SVG charts, dialogue records). One page per registered
benchmark (steps/<benchmark>/benchmark.py), from the same long tables as the Markdown reports
(reports/<benchmark>.csv) and, for the viewer on a dialogue benchmark's page, every configured agent's dialogues
under data/ (J1 runs, MILE, UCL-Bench, PLawBench consultations). Writes reports/html/*.html: self-contained pages
(styles, script and data inlined) that open from disk.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from prefect import flow, task
from prefect.cache_policies import NO_CACHE

from flows.dialogues import agent_dialogues
from flows.kit.config import PARAMS_FILE, Params, load_params
from flows.kit.paths import PATHS, Paths
from flows.kit.stage import main
from steps.benchmarks import benchmark, names
from steps.reports.html import dialogues
from steps.reports.html.pages import benchmark_page, index_page
from steps.tables import write_text_atomic
from steps.ucl.tasks import TASKS

REPORTS = PATHS.reports
DATA = PATHS.data


def read_long(path: Path) -> pd.DataFrame:
    """A report CSV as the Markdown reports wrote it (the agent named `null` stays a name, not NaN)."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: report table not found; run the stage that writes it (see dvc.yaml)")
    return pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={"agent": str, "scope": str})


def load_dialogues(bench: str, params: Params, data: Path = DATA) -> list[dialogues.Record]:
    """The dialogue records of every configured agent that has a run of this benchmark on disk."""
    task_ids = {t.key: t.id for t in TASKS}
    return [r for agent in params.agents for r in agent_dialogues(bench, Paths(data=data).run(bench, agent), task_ids)]


@task(cache_policy=NO_CACHE)
def build_page(bench: str, params: Params, reports: Path, data: Path) -> tuple[str, int, int]:
    df = read_long(reports / f"{bench}.csv")
    records = load_dialogues(bench, params, data) if benchmark(bench).dialogues else None
    page = benchmark_page(bench, df, records, list(params.agents))
    write_text_atomic(reports / "html" / f"{bench}.html", page)
    return bench, len(df), len(records or [])


@flow(name="html_report")
def html_report(params_file: Path = PARAMS_FILE, reports: Path = REPORTS, data: Path = DATA) -> str:
    params = load_params(params_file)
    (reports / "html").mkdir(parents=True, exist_ok=True)
    built = [build_page(bench, params, reports, data) for bench in names()]
    counts = {bench: (rows, n) for bench, rows, n in built}
    write_text_atomic(reports / "html" / "index.html", index_page(counts))
    size = sum(p.stat().st_size for p in (reports / "html").glob("*.html"))
    dialogue_total = sum(n for _, n in counts.values())
    return (
        f"reports/html/: {len(built) + 1} pages written ({size / 1e6:.1f} MB), "
        f"{dialogue_total:,} dialogues in the transcript viewer"
    )


if __name__ == "__main__":
    main(html_report)

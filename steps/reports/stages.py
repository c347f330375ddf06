"""The kernel's report stages (declared in steps/pipeline.py), after every benchmark's own. Each takes its
`StageContext` and returns its one-line summary.

- `data_report`: the data card reports/data.md from the interim tables (DuckDB SQL), with the model usage of every
  stage and the dialogues and judged rows of every benchmark's runs. Each interim table's summary query is its
  benchmark's (sql/data_<table>.sql, or one its sources.py names; data_dialogues and data_judged span the
  benchmarks); the tables and their titles are the benchmarks' own (steps/<benchmark>/sources.py), the judged
  tables their registrations' (steps/<benchmark>/benchmark.py).
- `html_report`: the static HTML report (steps.reports.html): reports/html/*.html, one self-contained page per
  registered benchmark (styles, script and data inlined; opens from disk) from the same long tables as the
  Markdown reports (reports/<benchmark>.csv), with a transcript viewer of every configured agent's dialogues on a
  dialogue benchmark's page (read by its registration's `dialogue_reader`), and an index.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from pathlib import Path

import duckdb
import pandas as pd

from steps.benchmarks import benchmark, benchmarks, judged_tables, names
from steps.paths import Paths
from steps.registry import SourceTable
from steps.reports.data_card import RunsSection, TableSection, render_data_card
from steps.reports.html import dialogues
from steps.reports.html.judges import judges_page
from steps.reports.html.pages import benchmark_page, index_page, markdown_name
from steps.reports.html.viewer import agent_dialogues
from steps.schemas.judged import Judged
from steps.sources import load_manifest
from steps.sources.tables import source_tables
from steps.sql import register_labelled_union, register_parquet, register_parquet_union, run_query
from steps.stages import StageContext
from steps.stats.power import RHO

# Every stage that calls models writes its accounting rows beside its outputs (steps/paths.py).
USAGE_GLOB = "**/*usage.parquet"  # usage.parquet, judge_usage.parquet, extract_usage.parquet …
# Every dialogue run (the UCL reference's included) writes turns and dialogues in one schema (steps/schemas/runs.py).
RUN_GLOB = "**/{table}.parquet"
REPEAT_FOLDER = re.compile(r"repeat-[0-9]+")  # a later repeat's run folder (steps/paths.py `repeat_folder`)


# ------------------------------------------------------------------ the data card
def data_report(ctx: StageContext) -> str:
    """Write the data card for every interim table."""
    paths = ctx.paths
    tables = [(t, paths.interim / f"{t.name}.parquet") for t in card_tables()]
    missing = [str(p) for _, p in tables if not ctx.input_path(p).is_file()]
    if missing:
        raise FileNotFoundError(f"{missing[0]}: interim table missing; run `dvc repro ingest` first")
    usage_files = sorted(paths.data.glob(USAGE_GLOB))
    out = paths.reports / "data.md"
    sections, usage = ctx.task(summarise)([(t, ctx.input_path(p)) for t, p in tables], usage_files)
    manifest = load_manifest(ctx.input_path(paths.manifest))
    rho = ctx.params.stats.rho  # the correlation the smallest detectable differences assume (params.yaml stats.rho)
    power = ctx.task(power_rows)(paths, rho)
    text = render_data_card(manifest, sections, usage, ctx.task(summarise_runs)(paths), power, rho=rho)
    ctx.write_text(out, text)
    ctx.publish_markdown(f"report-{out.stem}", text, "The data card: pinned sources, row counts, model usage")
    return f"{out} written ({len(sections)} tables, {sum(s.rows for s in sections):,} rows described); 0 failed"


def power_rows(paths: Paths, rho: float = RHO) -> pd.DataFrame | None:
    """The smallest detectable differences (steps/stats/power.py) of every benchmark that registers item scores,
    from the sizes of its runs under data/<benchmark>/runs/ (each read alone; a run without its scores yet is
    left out; None when no benchmark has a run), for two models whose item scores correlate by `rho`."""
    from steps.registry import resolve
    from steps.stats.cells import read_each
    from steps.stats.power import power_table

    frames = []
    for name, reg in benchmarks().items():
        runs = paths.runs(name)
        agents = sorted(p.name for p in runs.iterdir() if p.is_dir()) if runs.is_dir() else []
        if reg.item_scores is None or not agents:
            continue
        scores = read_each(functools.partial(resolve(reg.item_scores), paths), agents)
        if scores is None:
            continue
        table = power_table(scores, rho=rho)
        digits = 1 if scores.scale >= 10 else 3  # points on 0–100 to 1 decimal; a 0–1 scale (LawBench) to 3
        frames.append(table.assign(benchmark=name).round({"mde_items": digits, "mde_clusters": digits}))
    if not frames:
        return None
    out = pd.concat(frames, ignore_index=True)
    return out[["benchmark", *[c for c in out.columns if c != "benchmark"]]]


def card_tables() -> list[SourceTable]:
    """The interim tables in the data card's order: each benchmark's in its declared order, the benchmarks in
    order (`position`), the corpora (J1's judgments) after every benchmark's own data."""
    declared = source_tables()
    owners = [*(b for b in benchmarks() if b in declared), *(b for b in declared if b not in benchmarks())]
    tables = [t for b in owners for t in declared[b]]
    return [t for t in tables if not t.corpus] + [t for t in tables if t.corpus]


def judged_files(paths: Paths) -> list[tuple[dict[str, str], Path]]:
    """Every judged table of every run, labelled with its benchmark and table."""
    return [
        ({"benchmark": bench, "table": table}, path)
        for bench, tables in judged_tables().items()
        for table in tables
        for path in sorted(paths.runs(bench).glob(f"*/{table}.parquet"))
    ]


def _count(con: duckdb.DuckDBPyConnection, table: str) -> int:
    (rows,) = con.execute(f"SELECT count(*) FROM {table}").fetchall()[0]
    return rows


def summarise(
    tables: list[tuple[SourceTable, Path]], usage_files: list[Path]
) -> tuple[list[TableSection], TableSection | None]:
    """Each interim table's section (its rows and summary query) and the model usage of every stage."""
    with duckdb.connect() as con:
        register_parquet(con, {t.name: path for t, path in tables})
        sections = []
        for t, _ in tables:
            rows = _count(con, t.name)
            if t.summary is None:
                raise ValueError(f"interim table {t.name}: its SourceTable names no summary query")
            sections.append(TableSection(t.name, t.title, rows, run_query(con, t.summary)))
        usage = None
        if usage_files:
            register_parquet_union(con, "model_usage", usage_files)
            rows = _count(con, "model_usage")
            usage = TableSection("model_usage", "Model usage", rows, run_query(con, "data_model_usage"))
    return sections, usage


def is_later_repeat(path: Path) -> bool:
    """Whether `path` lies in a later repeat's folder of a run (`repeat-<i>/`, docs/statistics.md#repeated-runs)."""
    return any(REPEAT_FOLDER.fullmatch(part) for part in path.parts)


def repeats_on_disk(paths: Paths, files: Iterable[Path]) -> dict[tuple[str, str], int]:
    """(benchmark, agent) → the runs of an agent with repeats whose dialogues are on disk: repeat 0 and each
    `data/<benchmark>/runs/<agent>/repeat-<i>/` holding `files` (only agents with a later repeat)."""
    later: dict[tuple[str, str], set[str]] = {}
    for path in files:
        parts = path.relative_to(paths.data).parts
        if len(parts) > 4 and parts[1] == "runs" and REPEAT_FOLDER.fullmatch(parts[3]):
            later.setdefault((parts[0], parts[2]), set()).add(parts[3])
    return {key: 1 + len(folders) for key, folders in later.items()}


def summarise_runs(paths: Paths) -> RunsSection:
    """Dialogues and judged rows per benchmark, each one query over every benchmark's tables. An agent with
    repeated runs is counted once (its repeat 0, as the judged rows), with the runs on disk in a `repeats` column
    (shown only when some agent has them)."""
    found = [sorted(paths.data.glob(RUN_GLOB.format(table=t))) for t in ("dialogues", "turns")]
    repeats = repeats_on_disk(paths, found[0])
    dialogue_files, turns = ([f for f in files if not is_later_repeat(f)] for files in found)
    judged = judged_files(paths)
    with duckdb.connect() as con:
        per_dialogue = per_judged = None
        if dialogue_files and turns:
            register_parquet_union(con, "dialogues", dialogue_files)
            register_parquet_union(con, "turns", turns)
            per_dialogue = run_query(con, "data_dialogues")
            if not per_dialogue.context_exceeded.any():  # shown only where an agent reached its context limit
                per_dialogue = per_dialogue.drop(columns="context_exceeded")
            if repeats:  # the runs of each agent, where some agent has repeats
                runs = [repeats.get((b, a), 1) for b, a in zip(per_dialogue.benchmark, per_dialogue.agent, strict=True)]
                per_dialogue.insert(2, "repeats", runs)
        if judged:
            register_labelled_union(con, "judged", judged, list(Judged.to_schema().columns))
            per_judged = run_query(con, "data_judged")
    return RunsSection(per_dialogue, per_judged)


# ------------------------------------------------------------------ the HTML report
def html_report(ctx: StageContext) -> str:
    """One page per registered benchmark and the index under reports/html/."""
    html = ctx.paths.reports / "html"
    ctx.output_path(html).mkdir(parents=True, exist_ok=True)

    def build_page(bench: str) -> tuple[str, int, int]:
        """reports/html/<bench>.html; returns the benchmark, its result rows and its dialogues."""
        return write_page(ctx, bench)

    page = ctx.task(build_page)
    built = [page(bench) for bench in names()]
    counts = {bench: (rows, n) for bench, rows, n in built}
    board, notes, ranks_note = ctx.task(overview_leaderboard)(ctx.input_path(ctx.paths.reports), ctx.paths)
    ctx.write_text(html / "index.html", index_page(counts, board, notes, ranks_note))
    audit = ctx.input_path(ctx.paths.reports / "judges.md")
    ctx.write_text(html / "judges.html", judges_page(audit.read_text(encoding="utf-8") if audit.is_file() else None))
    size = sum(p.stat().st_size for p in ctx.output_path(html).glob("*.html"))
    dialogue_total = sum(n for _, n in counts.values())
    return (
        f"reports/html/: {len(built) + 1} pages written ({size / 1e6:.1f} MB), "
        f"{dialogue_total:,} dialogues in the transcript viewer"
    )


def overview_leaderboard(reports: Path, paths: Paths) -> tuple[pd.DataFrame, list[str], str]:
    """The overview's leaderboard: every benchmark's headline numbers from the CSV twins under `reports`, ours with
    their intervals and tie-group ranks (steps.results.headline_ranks, from the runs' item scores under `paths`),
    the papers' models beside them; the protocol lines; the note on the ranks."""
    from steps.results import RANKS_NOTE, headline_ranks, headline_rows, leaderboard, protocol_lines

    rows = headline_rows(reports)
    ranks = headline_ranks(rows, paths)
    return leaderboard(rows, ranks=ranks), protocol_lines(rows), RANKS_NOTE if ranks else ""


def write_page(ctx: StageContext, bench: str) -> tuple[str, int, int]:
    """reports/html/<bench>.html; returns the benchmark, its result rows and its dialogues."""
    reports, agents = ctx.paths.reports, list(ctx.params.agents)
    df = read_long(ctx.input_path(reports / f"{bench}.csv"))
    records = load_dialogues(bench, agents, ctx.paths, ctx.input_path) if benchmark(bench).dialogues else None
    twin = ctx.input_path(reports / markdown_name(bench))  # read only for a page with a preface (J1's provenance)
    markdown = twin.read_text(encoding="utf-8") if benchmark(bench).page.preface and twin.is_file() else None
    ctx.write_text(reports / "html" / f"{bench}.html", benchmark_page(bench, df, records, agents, markdown))
    return bench, len(df), len(records or [])


def read_long(path: Path) -> pd.DataFrame:
    """A report CSV as the Markdown reports wrote it (the agent named `null` stays a name, not NaN)."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: report table not found; run the stage that writes it (see dvc.yaml)")
    return pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={"agent": str, "scope": str})


def load_dialogues(
    bench: str, agents: Iterable[str], paths: Paths, locate: Callable[[Path], Path] = lambda p: p
) -> list[dialogues.Record]:
    """The dialogue records of every agent named that has a run of this benchmark on disk (`locate`: where to read
    a run folder from, a context's `input_path`)."""
    return [r for agent in agents for r in agent_dialogues(bench, locate(paths.run(bench, agent)), paper_ids=True)]

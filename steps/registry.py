"""What a benchmark registers: `BENCHMARK = Benchmark(...)` in `steps/<benchmark>/benchmark.py`, and the interim
tables of stage `ingest` as `TABLES = (SourceTable(...), ...)` in `steps/<benchmark>/sources.py`.

Both are found on disk (`steps/benchmarks.py`, `steps/sources/tables.py`), as the params section is
(`steps/<benchmark>/params.py`), so a benchmark is its own folder: the data card, the leaderboard, the HTML
report, the paper-model check, `jurisflow eval` and `show` derive their lists from the registrations. This module
holds only the dataclasses and stays light: a registration imports nothing else, and names the code that would
make it heavy (`"module:function"`, loaded by `resolve` when it is used).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from steps.stages import Stage

if TYPE_CHECKING:
    import pandas as pd
    import pandera.pandas as pa
    import pyarrow

    from steps.sources.types import Fetched


@dataclass(frozen=True)
class Headline:
    """One headline number of a benchmark: the rows (`table`, `scope`, `metric`) of its CSV twin.

    The first headline of a benchmark is its main number, its DVC metric (`reports/metrics/<benchmark>.json`,
    `{agent: value}`); every headline is in its DVC metrics details (`reports/metrics/details/<benchmark>.json`,
    under `key`, by default the metric). One with a `column` is a column of `jurisflow results` and a line of
    `jurisflow eval`'s summary, under that name. All of these are × `scale` (100 for a fraction): on 0–100.
    `paper` names a function ("module:function") giving the paper's numbers for it (columns agent, value, judge)
    when the CSV twin holds them only for the agents matched to a paper model (UCL-Bench's Table 3 AVG)."""

    table: str
    metric: str
    scope: str = "overall"
    key: tuple[str, ...] = ()
    column: str | None = None
    scale: float = 1.0
    paper: str | None = None

    @property
    def path(self) -> tuple[str, ...]:
        """Where the DVC metrics details show the number under the agent (`zero_shot.overall`, `AVG_OO`)."""
        return self.key or (self.metric,)


@dataclass(frozen=True)
class Plot:
    """A DVC plot (`reports/plots/<name>.csv`): our rows of one CSV table with these metrics (None: every metric)
    and scopes (None: every scope), labelled by `label` (`scope`, `metric` or both, "scope metric"), valued
    × `scale` (100 for a fraction: every plot is on 0–100)."""

    name: str
    table: str
    metrics: tuple[str, ...] | None
    scopes: tuple[str, ...] | None
    label: str
    label_name: str
    value_name: str
    title: str = ""
    scale: float = 1.0


@dataclass(frozen=True)
class Page:
    """How the HTML report presents a benchmark's page (steps/reports/html/pages.py); all optional: without it the
    page has its CSV tables in CSV order under their own names, and no charts.

    `titles` names tables (table, title), `table_order` puts tables first (the others keep their CSV order after
    them), `primary` is the metric shown first when a wide table is split per metric, `paper_in_plots` the paper's
    agents drawn in charts beside ours, `markdown` the Markdown twin under reports/ the page's note names (None:
    <benchmark>.md), `percent` the tables whose CSV values are fractions, shown × 100 in the page's tables and
    charts (as in the Markdown twin and the paper: LawBench's scores). Functions ("module:function"):
    `scope_order` () -> the scopes in the order the tables list them (J1's environments); `charts` (df, chart) ->
    the page's charts, each `chart(title, table, categories, key, **filters)`; `link` (href, envs, agent, scope,
    metric) -> the viewer link of one of our table cells (None: a cell whose scope is an environment of the
    viewer's records links to them); `preface` (the Markdown twin's text) -> a Markdown paragraph the page shows
    above its tables (J1's instance provenance), or None; `brief` (the same text) -> its one-line short form, which
    `jurisflow results` prints under the leaderboard, or None."""

    titles: tuple[tuple[str, str], ...] = ()
    table_order: tuple[str, ...] = ()
    primary: str | None = None
    paper_in_plots: tuple[str, ...] = ()
    markdown: str | None = None
    percent: tuple[str, ...] = ()
    scope_order: str | None = None
    charts: str | None = None
    link: str | None = None
    preface: str | None = None
    brief: str | None = None


@dataclass(frozen=True)
class Command:
    """A command of a benchmark's own, `jurisflow <benchmark> <name>`: `function` ("module:function") takes a
    `StageContext` and the command's options (typed; `typing.Annotated` with a `typer.Option` or `typer.Argument`
    for their help) and returns the lines to print. With `flow`, it runs as a Prefect flow (a run in the UI, its
    model calls checked like a stage's); otherwise it is called directly."""

    name: str
    function: str
    flow: bool = False


@dataclass(frozen=True)
class Benchmark:
    """A benchmark, keyed by its `name`: its package under steps/, its params.yaml section, its stages' prefix,
    data/<name>/ and reports/<name>.csv.

    `title` names it in the reports (its HTML page); `position` orders the benchmarks (the leaderboard's columns,
    the pages, the data card). `judged` are the tables each run writes that extend `steps.schemas.judged.Judged`
    (data/<name>/runs/<agent>/<table>.parquet, counted by the data card). `dialogues`: its runs write the shared
    turns and dialogues tables (a transcript viewer on its page, `jurisflow show`). `paper_names` names a function
    ("module:function") giving its paper's models and their other spellings, which `paper_model` is checked
    against; None when the list is data (LawBench's results.csv, checked by its report stage). `stages` are its
    DVC stages in pipeline order (steps/stages.py), each declared once here. `page` is its HTML page's
    presentation; `dialogue_reader` ("module:function", (run folder, paper_ids) -> viewer records) reads one
    agent's run for the transcript viewer and `jurisflow show` (None: the shared turns and dialogues tables alone;
    `paper_ids`: label records with the paper's ids, UCL-Bench's task ids), from a run folder holding
    `dialogue_marker`. `show` ("module:function", (run folder, instance id, usage rows by call key) -> lines of
    rich markup) prints one dialogue for `jurisflow show` (None: the viewer's record). `smoke` ("module:function",
    () -> {profile: section overrides}) gives its samples in the real-model runs (flows/smoke_real.py).
    `commands` are its own CLI commands (`jurisflow <name> ...`), beside its stages'. `run_prompts` ("module:function",
    (data dir, a run's folder) -> texts) gives the prompt templates a run used that are not ours (read at run time
    from the pinned data, as UCL-Bench's released prompts), which the real-model echo check compares replies with.
    `item_scores` ("module:function", (Paths, agents) -> `steps.stats.cells.ItemScores`) gives its runs' item-level
    scores, from which its report's intervals and `jurisflow compare` come (None: no intervals). `human_study`
    ("module:NAME", a `steps.reports.human_labels.HumanStudy`) says how its judge is compared with human labels in
    its paper's own statistic, beside the paper's figures (None: its paper reports no judge–human agreement)."""

    name: str
    title: str
    position: int
    judged: tuple[str, ...] = ()
    dialogues: bool = False
    headlines: tuple[Headline, ...] = ()
    plots: tuple[Plot, ...] = ()
    paper_names: str | None = None
    stages: tuple[Stage, ...] = ()
    page: Page = Page()
    dialogue_reader: str | None = None
    dialogue_marker: str = "dialogues.parquet"
    show: str | None = None
    smoke: str | None = None
    commands: tuple[Command, ...] = ()
    run_prompts: str | None = None
    item_scores: str | None = None
    human_study: str | None = None

    def smoke_profile(self, profile: str) -> dict[str, Any]:
        """Its params.yaml section overrides in the real-model profile `profile` (`make smoke-real`: `small`; the
        slice test: `slice`); {} when its registration names none (it runs on its defaults)."""
        return dict(resolve(self.smoke)().get(profile, {})) if self.smoke else {}

    def paper_models(self) -> dict[str, tuple[str, ...]]:
        """Its paper's models and their other spellings ({} when `paper_names` is None)."""
        return dict(resolve(self.paper_names)()) if self.paper_names else {}


@dataclass(frozen=True)
class SourceTable:
    """An interim table of stage `ingest`: the files of dataset `name` in sources.yaml, parsed by `load` into
    data/interim/<name>.parquet, validated by `schema`, with the Parquet types of its nested columns.

    The data card gives it a section titled `title`, summarised by `summary` (the path of a .sql file in the
    benchmark's `sql/` folder; None: the section shows the row count only). A `corpus` is material the
    benchmark builds its own items from (J1's judgments): the data card lists corpora after every benchmark's
    data."""

    name: str
    title: str
    load: Callable[[list[Fetched]], pd.DataFrame]
    schema: type[pa.DataFrameModel]
    arrow_types: Mapping[str, pyarrow.DataType] = field(default_factory=dict)
    summary: Path | None = None
    corpus: bool = False


def resolve(name: str) -> Any:
    """The object a registration names as "module:attribute" (imported now)."""
    module, _, attribute = name.partition(":")
    return getattr(importlib.import_module(module), attribute)

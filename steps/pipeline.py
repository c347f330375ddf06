"""The pipeline's stages in order: the kernel's shared stages around every benchmark's own (its registration's
`stages`). The shared stages' inputs and outputs are derived from the registrations, so that none names a
benchmark: `ingest` writes every interim table the benchmarks declare, the data card reads them and every
benchmark's data, the HTML report reads every CSV twin and the runs of the benchmarks with dialogues."""

from __future__ import annotations

from functools import cache

from steps.benchmarks import benchmarks
from steps.stages import Stage


def _interim() -> tuple[str, ...]:
    from steps.sources.tables import source_tables

    return tuple(f"data/interim/{t.name}.parquet" for tables in source_tables().values() for t in tables)


def _registered_code() -> tuple[str, ...]:
    """Every benchmark's package: a shared stage runs the code its registrations name (ingest the loaders, the data
    card the summary queries, the HTML report the pages' charts and the transcript readers), which its body does
    not import."""
    return tuple(f"steps/{name}" for name in benchmarks())


def first_stages() -> tuple[Stage, ...]:
    """Before every benchmark's stages: the pinned sources as interim tables."""
    return (
        Stage(
            "ingest",
            "steps.sources.stage:ingest",
            "Fetch, verify and normalise every pinned source into `data/interim/<table>.parquet`.",
            writes=_interim(),
            params=("sources",),
            code=_registered_code(),
        ),
    )


def last_stages() -> tuple[Stage, ...]:
    """After every benchmark's stages: the data card, the judge audit and the HTML report."""
    registered = benchmarks().values()
    return (
        Stage(
            "data_report",
            "steps.reports.stages:data_report",
            "Write the data card: every interim table, and the runs across benchmarks.",
            reads=(*_interim(), *(f"data/{b.name}" for b in registered)),
            reports=("reports/data.md",),
            params=("stats",),
            code=_registered_code(),
        ),
        Stage(
            "judges_report",
            "steps.reports.judges:judges_report",
            "The judge audit: failures, repairs, order flips and self-preference of every LLM-judged table, the "
            "agreement of panels of judges and with human labels (data/human_labels/*.csv).",
            reads=(*(f"data/{b.name}/runs" for b in registered if b.judged), "data/human_labels"),
            reports=(
                "reports/judges.md",
                "reports/judges.csv",
                "reports/judges_panels.csv",
                "reports/judges_rankings.csv",
                "reports/judges_human.csv",
                "reports/judge_probes.csv",
            ),
            params=("agents",),
            code=_registered_code(),
        ),
        Stage(
            "html_report",
            "steps.reports.stages:html_report",
            "The static HTML report: one page per benchmark with plots and a transcript viewer.",
            reads=(
                *(f"reports/{b.name}.csv" for b in registered),
                *(f"reports/{b.page.markdown or b.name + '.md'}" for b in registered if b.page.preface),
                *(f"data/{b.name}/runs" for b in registered if b.dialogues and not b.item_scores),
                # the overview's tie groups: every benchmark's item scores (its runs, LawBench's rescored predictions)
                *(f"data/{b.name}" for b in registered if b.item_scores),
                "reports/judges.md",
            ),
            writes=("reports/html",),
            params=("agents",),
            code=_registered_code(),
        ),
    )


@cache
def stages() -> dict[str, Stage]:
    """Every stage by name, in pipeline order."""
    ordered = [*first_stages(), *(s for b in benchmarks().values() for s in b.stages), *last_stages()]
    out: dict[str, Stage] = {}
    for s in ordered:
        if s.name in out:
            raise ValueError(f"stage {s.name!r} is declared twice")
        out[s.name] = s
    return out


def stage(name: str) -> Stage:
    try:
        return stages()[name]
    except KeyError:
        raise KeyError(f"unknown stage {name!r}; the stages: {', '.join(stages())}") from None


def owner(name: str) -> str | None:
    """The benchmark that declares stage `name` (None: a shared stage)."""
    return next((b.name for b in benchmarks().values() if any(s.name == name for s in b.stages)), None)

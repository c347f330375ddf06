"""Human labels and the judge's agreement with them (stage `judges_report`), in each paper's own statistic, beside
the paper's figures.

A user drops CSV files into `data/human_labels/` (every `*.csv` there is read; the folder is a dependency of the
stage; its README.md and docs/judges.md give the format), one row per rating:

    benchmark,item,agent,rater,score

`benchmark` a benchmark whose registration names a `HumanStudy` (`human_study`, in its package's human.py); `item`
the judged table's item (the study's `item` column); `agent` the agent whose answer was rated (its name in
params.yaml); `rater` any name of the human rater; `score` on the study's scale (`score_max`). A rater rates an item
of an agent once.

A judge's value of an item is the mean of its valued rows of that item (rows a rule valued or that failed are
left out; `HumanStudy.rows` keeps a subset). The statistics (`HumanStudy.statistic`):
- `difference`: per item d = human mean − judge on `unit_scale`; the mean of d, σ (its sample standard deviation)
  and the share of items with |d| ≤ σ;
- `agreement` (pairwise verdicts): each item's verdict (win > 0.5, tie = 0.5, loss < 0.5; the judge's value is the
  mean of its rows of the item, e.g. both orders) against the human majority (the verdict most raters gave; no
  single one: a tie), the share that agree with ties, and without ties (items neither side calls a tie); the raters'
  own agreement (every pair of raters of an item) the same two ways;
- `correlation`: per task (the study's `task` column), Pearson's r and Spearman's ρ of the judge against the human
  mean.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pandas as pd

from steps.stats.agreement import pearson, spearman

FOLDER = "human_labels"  # under data/: every *.csv there is read (a dependency of stage judges_report)
COLUMNS = ["benchmark", "item", "agent", "rater", "score"]
OUT = ["benchmark", "source", "judge", "task", "statistic", "items", "value"]
HUMAN_HUMAN = "human–human"


@dataclass(frozen=True)
class PaperFigure:
    """One judge–human figure of a paper: its `statistic` (as `OUT` names ours), for `task` ("" for all), of the
    paper's `judge` (or `human–human`)."""

    statistic: str
    value: float
    judge: str
    task: str = ""


@dataclass(frozen=True)
class HumanStudy:
    """How a benchmark's judge is compared with human labels (see the module docstring)."""

    table: str
    item: str
    statistic: Literal["difference", "agreement", "correlation"]
    score_max: float
    paper: tuple[PaperFigure, ...]
    source: str
    unit_scale: float = 1.0
    task: str | None = None  # the column the statistic is computed per (None: all items at once)
    tasks: Mapping[str, str] = field(default_factory=dict)  # that column's values → the paper's task names
    rows: Mapping[str, str] = field(default_factory=dict)  # keep the judged rows with these column values


def read_labels(folder: Path, known: Iterable[str]) -> pd.DataFrame:
    """Every `*.csv` in `folder` (sorted), checked: the columns, a numeric score, a known benchmark, one rating per
    rater, item and agent. A problem raises ValueError naming the file (and the line)."""
    names = set(known)
    frames = []
    for path in sorted(folder.glob("*.csv")) if folder.is_dir() else []:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        missing = [c for c in COLUMNS if c not in frame.columns]
        if missing:
            raise ValueError(f"{path}: missing column(s) {', '.join(missing)}; the columns: {','.join(COLUMNS)}")
        scores = pd.to_numeric(frame.score, errors="coerce")
        if scores.isna().any():
            line = int(scores.isna().to_numpy().argmax()) + 2
            raise ValueError(f"{path}: line {line}: score {frame.score.iloc[line - 2]!r} is not a number")
        unknown = sorted(set(frame.benchmark) - names)
        if unknown:
            raise ValueError(f"{path}: unknown benchmark(s) {', '.join(unknown)}; the benchmarks: {', '.join(names)}")
        frames.append(frame[COLUMNS].assign(score=scores.astype(float), file=path.name))
    labels = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=[*COLUMNS, "file"])
    twice = labels[labels.duplicated(["benchmark", "item", "agent", "rater"], keep=False)]
    if len(twice):
        r = twice.iloc[0].to_dict()
        files = ", ".join(sorted(set(twice.file)))
        raise ValueError(
            f"{folder}: rater {r['rater']} rates {r['benchmark']} item {r['item']} of {r['agent']} more than once "
            f"({files})"
        )
    return labels


def judge_values(frame: pd.DataFrame, study: HumanStudy) -> pd.DataFrame:
    """judge, agent, item, task, value: each judge's mean value of each item it valued."""
    kept = frame[~frame.judge.isin(["rule", ""]) & frame.value.notna() & frame.failure.isna()]
    for column, wanted in study.rows.items():
        kept = kept[kept[column] == wanted]
    task = kept[study.task].map(lambda t: study.tasks.get(t, t)) if study.task else ""
    kept = kept.assign(item=kept[study.item].astype(str), task=task)
    out = kept.groupby(["judge", "agent", "item", "task"], sort=False).value.mean().reset_index()
    return out[["judge", "agent", "item", "task", "value"]]


def verdict(value: float) -> str:
    """A pairwise value as a verdict for the candidate: win, tie or loss."""
    return "win" if value > 0.5 else "loss" if value < 0.5 else "tie"


def majority(verdicts: Iterable[str]) -> str:
    """The verdict most raters gave; a tie when no single verdict has the most."""
    counts = pd.Series(list(verdicts)).value_counts()
    top = counts[counts == counts.max()]
    return str(top.index[0]) if len(top) == 1 else "tie"


def agreement_shares(pairs: list[tuple[str, str]]) -> tuple[float | None, float | None, int, int]:
    """(% equal with ties, % equal without ties, pairs, pairs without a tie on either side)."""
    untied = [(a, b) for a, b in pairs if "tie" not in (a, b)]
    with_ties = 100 * sum(a == b for a, b in pairs) / len(pairs) if pairs else None
    without = 100 * sum(a == b for a, b in untied) / len(untied) if untied else None
    return with_ties, without, len(pairs), len(untied)


def _row(benchmark: str, judge: str, task: str, statistic: str, items: int, value: float | None) -> dict:
    return {
        "benchmark": benchmark,
        "source": "ours",
        "judge": judge,
        "task": task,
        "statistic": statistic,
        "items": items,
        "value": None if value is None else round(value, 4),
    }


def compare(benchmark: str, study: HumanStudy, judged: pd.DataFrame, labels: pd.DataFrame) -> list[dict]:
    """Our statistics of every judge in `judged` (the table's rows, with `agent`) against `labels` (this
    benchmark's ratings)."""
    human = labels.assign(value=labels.score / study.score_max)
    means = human.groupby(["agent", "item"], sort=False).value.mean().rename("human").reset_index()
    out: list[dict] = []
    if study.statistic == "agreement":
        rated = human.assign(verdict=human.value.map(verdict))
        majorities = rated.groupby(["agent", "item"], sort=False).verdict.agg(majority).rename("human").reset_index()
        pairs = [
            (a, b)
            for _, unit in rated.groupby(["agent", "item"], sort=False)
            for a, b in itertools.combinations(unit.verdict.tolist(), 2)
        ]
        with_ties, without, n, n_untied = agreement_shares(pairs)
        out += [
            _row(benchmark, HUMAN_HUMAN, "", "agreement with ties %", n, with_ties),
            _row(benchmark, HUMAN_HUMAN, "", "agreement without ties %", n_untied, without),
        ]
    for judge, values in judge_values(judged, study).groupby("judge", sort=False):
        if study.statistic == "agreement":
            both = values.merge(majorities, on=["agent", "item"])
            with_ties, without, n, n_untied = agreement_shares(
                list(zip(both.value.map(verdict), both.human, strict=True))
            )
            out += [
                _row(benchmark, str(judge), "", "agreement with ties %", n, with_ties),
                _row(benchmark, str(judge), "", "agreement without ties %", n_untied, without),
            ]
            continue
        both = values.merge(means, on=["agent", "item"])
        if study.statistic == "difference":
            d = (both.human - both.value) * study.unit_scale
            sigma = float(d.std(ddof=1)) if len(d) > 1 else None
            within = 100 * float((d.abs() <= sigma).mean()) if sigma is not None else None
            out += [
                _row(
                    benchmark,
                    str(judge),
                    "",
                    "mean difference (human − judge)",
                    len(d),
                    float(d.mean()) if len(d) else None,
                ),
                _row(benchmark, str(judge), "", "σ of the difference", len(d), sigma),
                _row(benchmark, str(judge), "", "within 1 σ %", len(d), within),
            ]
            continue
        for task, part in both.groupby("task", sort=True):
            h, j = part.human.tolist(), part.value.tolist()
            out += [
                _row(benchmark, str(judge), str(task), "Pearson", len(part), pearson(h, j)),
                _row(benchmark, str(judge), str(task), "Spearman", len(part), spearman(h, j)),
            ]
    return out


def paper_rows(benchmark: str, study: HumanStudy) -> list[dict]:
    return [
        {**_row(benchmark, f.judge, f.task, f.statistic, 0, f.value), "source": "paper", "items": None}
        for f in study.paper
    ]


def human_agreement(
    studies: Mapping[str, HumanStudy], judged: Mapping[str, pd.DataFrame], labels: pd.DataFrame
) -> pd.DataFrame:
    """Per benchmark with a study: the paper's figures, then ours for every judge of its table (`judged`:
    benchmark → the table's rows of every run, members of a panel too) where labels exist."""
    rows: list[dict] = []
    for benchmark, study in studies.items():
        rows += paper_rows(benchmark, study)
        mine = labels[labels.benchmark == benchmark]
        if len(mine) and benchmark in judged:
            rows += compare(benchmark, study, judged[benchmark], mine)
    out = pd.DataFrame(rows, columns=OUT)
    out["items"] = out["items"].astype("Int64")
    return out


def _cell(value: object) -> str:
    return "—" if value is None or pd.isna(value) else f"{value:g}"


def render(frame: pd.DataFrame, labels: pd.DataFrame, studies: Mapping[str, HumanStudy], folder: str) -> str:
    """The human-labels section of reports/judges.md."""
    lines = ["## Agreement with human labels", ""]
    if labels.empty:
        lines.append(
            f"No human labels: none ship with the project, and {folder}/ holds no CSV. Drop ratings there "
            "(docs/judges.md gives the format) to compare each judge with them in the paper's own statistic; "
            "the papers' figures follow."
        )
    else:
        counts = labels.groupby("benchmark").agg(ratings=("score", "size"), raters=("rater", "nunique"))
        lines.append(
            f"Human labels from {folder}/: "
            + ", ".join(f"{b} {r.ratings} ratings by {r.raters} raters" for b, r in counts.iterrows())
            + ". Ours beside the paper's (twin: reports/judges_human.csv)."
        )
        unstudied = sorted(set(labels.benchmark) - set(studies))
        if unstudied:
            lines.append(f"Not compared (their papers report no judge–human statistic): {', '.join(unstudied)}.")
    lines.append("")
    for benchmark, part in frame.groupby("benchmark", sort=False):
        study = studies[str(benchmark)]
        lines += [f"{benchmark} ({study.source}):", "", "| source | judge | task | statistic | items | value |"]
        lines.append("|---|---|---|---|---|---|")
        for r in part.itertuples(index=False):
            judge = f"`{r.judge}`" if r.source == "ours" and r.judge != HUMAN_HUMAN else r.judge
            lines.append(
                f"| {r.source} | {judge} | {r.task or 'all'} | {r.statistic} | {_cell(r.items)} | {_cell(r.value)} |"
            )
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def studies() -> dict[str, HumanStudy]:
    """Every benchmark's registered `HumanStudy`, in the benchmarks' order."""
    from steps.benchmarks import benchmarks
    from steps.registry import resolve

    return {n: resolve(b.human_study) for n, b in benchmarks().items() if b.human_study}


def judged_frames(
    files: list[tuple[dict[str, str], Path]], chosen: Mapping[str, HumanStudy]
) -> dict[str, pd.DataFrame]:
    """benchmark → its study's table of every run (and every panel member's rows), each with its `agent`."""
    from steps.reports.judge_panels import panel_file

    out: dict[str, list[pd.DataFrame]] = {}
    for labels, path in files:
        study = chosen.get(labels["benchmark"])
        if study is None or labels["table"] != study.table:
            continue
        for source in (path, panel_file(path)):
            if source.is_file():
                out.setdefault(labels["benchmark"], []).append(pd.read_parquet(source).assign(agent=path.parent.name))
    return {b: pd.concat(frames, ignore_index=True) for b, frames in out.items()}

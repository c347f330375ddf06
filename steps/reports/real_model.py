"""The real-model smoke run's outcome table: every output scored, or a typed failure with its reason, per stage.

The stages already record why an output is not scored (a failed call, a judge answer that was not valid JSON
or held no verdict, a dialogue that hit its turn cap or whose role said nothing, ...). This module only reads
those columns back from each stage's tables and counts them, so that one report section shows them side by side.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

# The columns in which the stages record an output's outcome: value = the kind; empty = no failure.
OUTCOME_COLUMNS = ("status", "ended_by", "failure", "failure_kind", "llm_status", "outcome")
# What an empty outcome cell means, per column.
EMPTY_MEANS = {"failure": "ok", "failure_kind": "ok (call succeeded)", "outcome": "none"}
LABEL = (
    "These numbers come from a real but tiny model (SmolLM2-135M-Instruct, Q4_1, on 2 CPU cores) playing the agent, "
    "the environment and the judge on a few items per benchmark. They show that every stage runs on real model "
    "output and how each output ended; they are never a measure of legal ability."
)


@dataclass(frozen=True)
class StageTable:
    stage: str  # e.g. "runs/smollm2_135m" (the table's folder under data/)
    table: str  # the file's name without .parquet
    frame: pd.DataFrame


def outcome_counts(tables: Iterable[StageTable]) -> pd.DataFrame:
    """One row per stage, table, outcome column and kind, with the number of rows of that kind."""
    rows: list[dict[str, object]] = []
    for t in tables:
        for column in OUTCOME_COLUMNS:
            if column not in t.frame.columns:
                continue
            kinds = t.frame[column].astype("object").where(t.frame[column].notna(), None)
            empty = EMPTY_MEANS.get(column, "none")
            for kind, n in kinds.fillna(empty).astype(str).value_counts().items():
                rows.append({"stage": t.stage, "table": t.table, "column": column, "kind": kind, "n": int(n)})
    columns = ["stage", "table", "column", "kind", "n"]
    return pd.DataFrame(rows, columns=columns).sort_values(columns[:4], kind="stable").reset_index(drop=True)


def read_stage_tables(data_dir: Path) -> list[StageTable]:
    """Every Parquet table under a project's data/ that holds an outcome column (interim inputs excluded)."""
    found: list[StageTable] = []
    for path in sorted(data_dir.rglob("*.parquet")):
        rel = path.relative_to(data_dir)
        if rel.parts[0] in ("interim", "raw"):
            continue
        frame = pd.read_parquet(path)
        if any(c in frame.columns for c in OUTCOME_COLUMNS):
            found.append(StageTable(stage=str(rel.parent), table=path.stem, frame=frame))
    return found


def outcome_section(counts: pd.DataFrame, stage_exits: dict[str, int], *, title: str = "Outcomes per stage") -> str:
    """The Markdown section: the label, each stage's exit code, then every outcome kind counted per stage."""
    lines = [f"## {title}", "", f"**{LABEL}**", ""]
    lines += ["| stage (dvc) | exit |", "|---|---|"]
    lines += [f"| {name} | {code} |" for name, code in sorted(stage_exits.items())]
    lines += ["", "| stage | table | column | kind | n |", "|---|---|---|---|---|"]
    for r in counts.itertuples(index=False):
        lines.append(f"| {r.stage} | {r.table} | {r.column} | {r.kind} | {r.n} |")
    return "\n".join(lines) + "\n"

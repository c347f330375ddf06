"""Where every stage reads and writes, and paths built from configuration (agent names, model names, settings),
which stay inside their parent folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from flows.kit.config import CACHE_DIR
from steps.llm.config import check_safe_name


def safe_child(parent: Path, *names: str) -> Path:
    """`parent / name / ...` where every name is one safe path component and the result, symlinks resolved,
    is inside `parent`; anything else raises a one-line ValueError naming the parent and the name."""
    child = parent
    for name in names:
        try:
            check_safe_name(name)
        except ValueError as err:
            raise ValueError(f"{parent}: refusing a path from configuration: {err}") from None
        child = child / name
    if not child.resolve().is_relative_to(parent.resolve()) or child.resolve() == parent.resolve():
        raise ValueError(f"{parent}: refusing {child}: it resolves to {child.resolve()}, outside {parent}")
    return child


# Where the stages read and write (the one list: flows never import another stage's flow for a path).
INTERIM_DIR = Path("data/interim")  # stage ingest
PROCESSED = Path("data/processed")  # extract, lawbench_score, topics, personas, instances
LAWBENCH_SCORES = PROCESSED / "lawbench_scores.parquet"  # lawbench_score
LAWBENCH_DIR = Path("data/lawbench")  # lawbench_predict, one folder per agent and setting
RUNS_DIR = Path("data/runs")  # J1 simulate, judge (one folder per agent)
TRANSCRIPTS_DIR = Path("reports/transcripts")  # J1 judge: sample dialogues, one folder per agent
MILE_DIR = Path("data/mile")  # mile_simulate, mile_judge
PLAWBENCH_DIR = Path("data/plawbench")  # plawbench_rubrics, predict, judge
UCL_JUDGE_DIR = "judge"  # data/ucl/<agent>/judge/: stage ucl_judge's outputs (data_report finds its usage.parquet)
REPORTS = Path("reports")


@dataclass(frozen=True)
class UclPaths:
    """Where the UCL stages read and write (tests point them elsewhere)."""

    interim: Path = INTERIM_DIR  # ucl.parquet from stage `ingest`
    runs: Path = Path("data/ucl")  # one folder per agent
    reference: Path = Path("data/ucl_reference")
    journals: Path = CACHE_DIR / "runs" / "ucl"  # resume journals, outside the DVC outputs
    reports: Path = REPORTS


UCL_PATHS = UclPaths()

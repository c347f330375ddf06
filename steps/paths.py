"""Where every stage reads and writes, in one place, and paths built from configuration (agent names, settings),
which stay inside their parent folder.

    data/interim/                         ingest: every pinned source as a table
    data/<benchmark>/                     a benchmark's shared tables (data/j1/instances.parquet,
                                          data/lawbench/published_scores.parquet, data/plawbench/tasks.parquet …)
    data/<benchmark>/runs/<agent>/        one agent's run (LawBench: data/lawbench/runs/<agent>/<setting>/):
                                          run.json, turns.parquet, dialogues.parquet (or predictions, responses),
                                          usage.parquet; its judge stage's tables and judge_usage.parquet beside them
    data/ucl/reference/                   the UCL-Bench reference model's run
    reports/                              the reports; reports/transcripts/<agent>/: J1 sample dialogues
    .cache/journals/<benchmark>/<agent>/<run id>.jsonl   resume journals of dialogue runs (never DVC outputs)
    .cache/sources/                       downloaded pinned sources

A stage's accounting rows are its `usage.parquet` (the stage that makes a run), `judge_usage.parquet` (the stage
that judges it) or `<step>_usage.parquet` (a shared stage: data/j1/extract_usage.parquet …), each with its
response-cache shard beside it (`call_cache.parquet`, `judge_call_cache.parquet` …). A stage is given its `Paths`
(the project's: `flows.kit.paths.PATHS`), so a test points a whole stage at a temporary folder with
`Paths(data=..., ...)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from steps.llm.config import check_safe_name

RUN_JSON = "run.json"
TURNS = "turns.parquet"
DIALOGUES = "dialogues.parquet"
USAGE = "usage.parquet"
JUDGE_USAGE = "judge_usage.parquet"
CALL_CACHE = "call_cache.parquet"  # every model-calling stage's response-cache shard, beside its usage table


def call_cache_path(usage: Path) -> Path:
    """The shard beside a usage table: `usage.parquet` → `call_cache.parquet`, `judge_usage.parquet` →
    `judge_call_cache.parquet`, `extract_usage.parquet` → `extract_call_cache.parquet` (flows/kit/call_cache.py)."""
    return usage.with_name(usage.name.removesuffix("usage.parquet") + CALL_CACHE)


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


@dataclass(frozen=True)
class Paths:
    """The roots every stage's inputs and outputs derive from (the layout above)."""

    data: Path = Path("data")
    reports: Path = Path("reports")
    cache: Path = Path(".cache")
    manifest: Path = Path("sources.yaml")  # the pinned sources (ingest reads it, the data card lists it)

    @property
    def interim(self) -> Path:
        """Stage ingest's tables."""
        return self.data / "interim"

    def shared(self, benchmark: str) -> Path:
        """A benchmark's shared tables (those of no single agent)."""
        return self.data / benchmark

    def runs(self, benchmark: str) -> Path:
        """The folder of a benchmark's runs, one sub-folder per agent."""
        return self.data / benchmark / "runs"

    def run(self, benchmark: str, agent: str, *sub: str) -> Path:
        """One agent's run of a benchmark (`sub`: e.g. LawBench's setting)."""
        return safe_child(self.runs(benchmark), agent, *sub)

    def repeat_run(self, benchmark: str, agent: str, repeat: int, *sub: str) -> Path:
        """Repeat `repeat` of an agent's run (`agents.<name>.repeats`): repeat 0 is `run`, a later one the folder
        `repeat-<i>` inside it."""
        if not repeat:
            return self.run(benchmark, agent, *sub)
        return Paths.run(self, benchmark, agent, repeat_folder(repeat), *sub)

    def for_repeat(self, agent: str, repeat: int) -> Paths:
        """These paths with `run(…, agent)` the folder of repeat `repeat` (what a per-agent stage body is given for
        each repeat of its agent); repeat 0: these paths."""
        return self if not repeat else RepeatPaths(self.data, self.reports, self.cache, self.manifest, agent, repeat)

    def reference(self, benchmark: str) -> Path:
        """The run of a benchmark's reference model (UCL-Bench)."""
        return self.data / benchmark / "reference"

    def journal(self, benchmark: str, agent: str, run_id: str) -> Path:
        """The resume journal of a dialogue run, outside the DVC outputs."""
        return safe_child(self.cache / "journals" / benchmark, agent, f"{run_id}.jsonl")

    @property
    def downloads(self) -> Path:
        """Pinned source files downloaded from upstream (ingest, and commands that score or read pinned files)."""
        return self.cache / "sources"


def repeat_folder(repeat: int) -> str:
    """The folder of a later repeat inside its agent's run: `repeat-1`, `repeat-2` …"""
    return f"repeat-{repeat}"


@dataclass(frozen=True)
class RepeatPaths(Paths):
    """`Paths` whose run folder of `agent` is that of one of its later repeats (`Paths.for_repeat`)."""

    agent: str = ""
    repeat: int = 0

    def run(self, benchmark: str, agent: str, *sub: str) -> Path:
        if agent == self.agent and self.repeat:
            return super().run(benchmark, agent, repeat_folder(self.repeat), *sub)
        return super().run(benchmark, agent, *sub)

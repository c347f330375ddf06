"""The real-model smoke run's outcome table: every output scored, or a typed failure with its reason, per stage.

The stages already record why an output is not scored (a failed call, a judge answer that was not valid JSON
or held no verdict, a dialogue that hit its turn cap or whose role said nothing, ...). This module only reads
those columns back from each stage's tables and counts them, so that one report section shows them side by side.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

# The columns in which the stages record an output's outcome: value = the kind; empty = no failure.
OUTCOME_COLUMNS = ("status", "ended_by", "failure", "failure_kind", "llm_status", "outcome")
# What an empty outcome cell means, per column.
EMPTY_MEANS = {"failure": "ok", "failure_kind": "ok (call succeeded)", "outcome": "none"}
LABEL = (
    "These numbers come from a real but tiny model (SmolLM2-135M-Instruct, Q4_1, on 2 CPU cores) playing the agent, "
    "the environment and the judge on a few items per benchmark (the court environments are built from judgments by "
    "the scripted extractor, the lay roles' personas by the scripted persona model). They show that every stage "
    "runs on real model output and how each output ended; they are never a measure of legal ability."
)


@dataclass(frozen=True)
class StageTable:
    stage: str  # e.g. "j1/runs/smollm2_135m" (the table's folder under data/)
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
        if "data" in t.frame.columns:  # supervisor answers that held no verdict (steps/simulate/review.py)
            unusable = t.frame["data"].map(lambda d: json.loads(d).get("unusable") if isinstance(d, str) else None)
            for kind, n in unusable.dropna().astype(str).value_counts().items():
                rows.append({"stage": t.stage, "table": t.table, "column": "data.unusable", "kind": kind, "n": int(n)})
    columns = ["stage", "table", "column", "kind", "n"]
    return pd.DataFrame(rows, columns=columns).sort_values(columns[:4], kind="stable").reset_index(drop=True)


# An output "echoes its prompt" when its first line, at least this many characters long, is copied verbatim from
# what the model was just given (the question, or the other speaker's last utterance). Tiny models do this a lot.
ECHO_MIN_CHARS = 12
DIALOGUE_KEY = "instance_id"  # of every benchmark's turns (steps/schemas/runs.py)


def first_line(text: str) -> str:
    return next((line.strip() for line in str(text or "").splitlines() if line.strip()), "")


def echoes(output: str, prompt: str) -> bool:
    """True when the output's first line (ECHO_MIN_CHARS or more) is copied verbatim from the prompt."""
    line = first_line(output)
    return len(line) >= ECHO_MIN_CHARS and line in str(prompt or "")


# A dialogue utterance "recites its instructions" when it holds a run of this many characters copied verbatim
# from the fixed text of a role template (steps/**/templates/*.j2): real speech never quotes its own brief.
RECITE_MIN_CHARS = 16
_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)


def _line_windows(fragments: Iterable[str]) -> set[str]:
    """Every RECITE_MIN_CHARS-long run within one line of `fragments` (a run never spans a line or a fragment)."""
    windows: set[str] = set()
    for fragment in fragments:
        for line in fragment.splitlines():
            line = line.strip()
            windows.update(line[i : i + RECITE_MIN_CHARS] for i in range(len(line) - RECITE_MIN_CHARS + 1))
    return windows


def instruction_windows(root: Path) -> frozenset[str]:
    """Every RECITE_MIN_CHARS-long run of the literal text of the role templates under `root`/steps."""
    return frozenset(
        _line_windows(
            fragment
            for template in sorted(root.glob("steps/**/templates/*.j2"))
            for fragment in _JINJA.split(template.read_text(encoding="utf-8"))
        )
    )


# a released template's placeholder (`{information}`, filled by `str.format` in the original code)
_SLOT = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")


def prompt_windows(texts: Iterable[str]) -> frozenset[str]:
    """Every RECITE_MIN_CHARS-long run of the literal text of prompt templates that are not ours (a benchmark's
    released prompts, read at run time), their `{slot}` placeholders left out."""
    return frozenset(_line_windows(fragment for text in texts for fragment in _SLOT.split(str(text))))


def run_windows(data_dir: Path, base: frozenset[str]) -> Callable[[str], frozenset[str]]:
    """Stage (a table's folder under `data_dir`) -> the instruction windows its utterances are checked against:
    `base` (our templates) and the prompts its run used that are not ours, which the benchmark's registration
    reads from the run (`run_prompts`: UCL-Bench's released role and model prompts when the run used them)."""
    from steps.benchmarks import benchmark, names
    from steps.registry import resolve

    known: dict[str, frozenset[str]] = {}

    def windows(stage: str) -> frozenset[str]:
        if stage not in known:
            name = stage.split("/", 1)[0]
            hook = benchmark(name).run_prompts if name in names() else None
            texts = resolve(hook)(data_dir, data_dir / stage) if hook else []
            known[stage] = base | prompt_windows(texts) if texts else base
        return known[stage]

    return windows


def recites(text: str, windows: frozenset[str]) -> bool:
    text = str(text or "")
    return any(text[i : i + RECITE_MIN_CHARS] in windows for i in range(len(text) - RECITE_MIN_CHARS + 1))


def echo_kinds(frame: pd.DataFrame, windows: frozenset[str] = frozenset()) -> pd.Series | None:
    """Per row: echoed_prompt, recited_instructions or own words; None for a table that holds neither shape.

    Two shapes: single calls with `prompt` and `prediction` (or `response`) columns, where an answer whose first
    line is copied from the prompt echoes it; and dialogue turns (`speaker`, `text`, `turn_index` and
    `instance_id`), where an utterance echoes when its first line is copied from another speaker's last utterance,
    and recites its instructions when it copies a run of a role template's fixed text (`windows`).
    """
    output = next((c for c in ("prediction", "response") if c in frame.columns), None)
    if "prompt" in frame.columns and output is not None:
        pairs = zip(frame[output], frame["prompt"], strict=True)
        return pd.Series(["echoed_prompt" if echoes(o, p) else "own words" for o, p in pairs], index=frame.index)
    if not {DIALOGUE_KEY, "speaker", "text", "turn_index"} <= set(frame.columns):
        return None
    spoken = frame if "kind" not in frame.columns else frame[frame["kind"] == "utterance"]
    kinds = pd.Series("own words", index=spoken.index)
    for _, dialogue in spoken.sort_values([DIALOGUE_KEY, "turn_index"]).groupby(DIALOGUE_KEY, sort=False):
        last: dict[str, str] = {}  # speaker -> their last utterance
        for index, row in dialogue.iterrows():
            heard = [text for speaker, text in last.items() if speaker != row["speaker"]]
            if any(echoes(row["text"], text) for text in heard):
                kinds[index] = "echoed_prompt"
            elif recites(row["text"], windows):
                kinds[index] = "recited_instructions"
            last[row["speaker"]] = str(row["text"])
    return kinds


def echo_flags(frame: pd.DataFrame) -> pd.Series | None:
    """Per row, whether the output echoes its prompt (see `echo_kinds`)."""
    kinds = echo_kinds(frame)
    return None if kinds is None else kinds == "echoed_prompt"


def echo_counts(
    tables: Iterable[StageTable], windows: frozenset[str] | Callable[[str], frozenset[str]] = frozenset()
) -> pd.DataFrame:
    """Outputs that echo their prompt or recite their instructions, per stage and table (column `echo`); `windows`:
    the instruction windows, or per stage the ones its run's prompts give (`run_windows`)."""
    rows: list[dict[str, object]] = []
    for t in tables:
        kinds = echo_kinds(t.frame, windows(t.stage) if callable(windows) else windows)
        if kinds is None or kinds.empty:
            continue
        for kind, n in kinds.value_counts().sort_index().items():
            rows.append({"stage": t.stage, "table": t.table, "column": "echo", "kind": kind, "n": int(n)})
    return pd.DataFrame(rows, columns=["stage", "table", "column", "kind", "n"])


def read_stage_tables(data_dir: Path) -> list[StageTable]:
    """Every Parquet table under a project's data/ that holds an outcome column (interim inputs excluded)."""
    found: list[StageTable] = []
    for path in sorted(data_dir.rglob("*.parquet")):
        rel = path.relative_to(data_dir)
        if rel.parts[0] in ("interim", "raw"):
            continue
        frame = pd.read_parquet(path)
        if any(c in frame.columns for c in OUTCOME_COLUMNS) or echo_kinds(frame.head(0)) is not None:
            found.append(StageTable(stage=str(rel.parent), table=path.stem, frame=frame))
    return found


def outcome_section(counts: pd.DataFrame, stage_exits: dict[str, int], *, title: str = "Outcomes per stage") -> str:
    """The Markdown section: the label, each stage's exit code, then every outcome kind counted per stage."""
    lines = [f"## {title}", "", f"**{LABEL}**", ""]
    lines += ["| stage dvc ran in the last invocation | exit |", "|---|---|"]
    lines += [f"| {name} | {code} |" for name, code in sorted(stage_exits.items())]
    lines += ["", "| stage | table | column | kind | n |", "|---|---|---|---|---|"]
    for r in counts.itertuples(index=False):
        lines.append(f"| {r.stage} | {r.table} | {r.column} | {r.kind} | {r.n} |")
    return "\n".join(lines) + "\n"


def judge_share_section(data_dir: Path, judged: Mapping[str, tuple[str, ...]]) -> str:
    """Per benchmark, the answers a judge model gave in its runs' judged tables (`judged`: benchmark → tables; rows a
    rule valued or left out before any judge was asked are not counted) and the share of them unparsable: the figure
    constrained output is measured by (docs/models.md)."""
    asked = ("unparsable", "out_of_range", "call_failed")
    lines = ["## Judge answers per benchmark", "", "| benchmark | judge answers | unparsable | unparsable % |"]
    lines.append("|---|---|---|---|")
    for bench, tables in judged.items():
        frames = [
            pd.read_parquet(path, columns=["judge", "value", "failure"])
            for table in tables
            for path in sorted((data_dir / bench / "runs").glob(f"*/{table}.parquet"))
        ]
        if not frames:
            continue
        rows = pd.concat(frames, ignore_index=True)
        rows = rows[~rows.judge.isin(["rule", ""]) & (rows.value.notna() | rows.failure.isin(asked))]
        if rows.empty:
            continue
        total, bad = len(rows), int((rows.failure == "unparsable").sum())
        lines.append(f"| {bench} | {total} | {bad} | {100 * bad / total:.0f} |")
    return "\n".join(lines) + "\n"

"""`jurisflow show RUN INSTANCE [--benchmark B]`: print one simulated dialogue readably in the terminal.

Every dialogue benchmark (a registration with `dialogues=True`), each run in data/<benchmark>/runs/<agent>/. RUN is
an agent alias (its directory there) or a run id (from a run.json there); INSTANCE is an instance or item id as in
the tables (`CR/judge/000b1a0e-…`), as in transcript file names (`CR_judge_000b1a0e-…`), or any unique part of
either. Without --benchmark every benchmark the agent has a run of is searched. A benchmark whose registration
names a `show` function prints its own lines (J1: the court stage of each turn and the model call behind it, from
the usage log under `llm.cache_dir`); the others print the transcript viewer's record: speaker → addressee and
model, then the scores with the judge's reasons.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel

from flows.kit.config import PARAMS_FILE
from flows.kit.models import read_usage_log
from flows.kit.paths import PATHS, USAGE, Paths
from steps.benchmarks import benchmark as registration
from steps.benchmarks import dialogue_benchmarks
from steps.llm import LLMSettings
from steps.registry import resolve
from steps.runs import read_run_if_any


def _cache_dir(params_file: Path = PARAMS_FILE) -> Path:
    """`llm.cache_dir` of the parameters file (read as plain YAML: showing a run needs no valid configuration)."""
    try:
        llm = (yaml.safe_load(params_file.read_text(encoding="utf-8")) or {}).get("llm") or {}
    except (OSError, yaml.YAMLError):
        llm = {}
    return Path(llm.get("cache_dir") or LLMSettings().cache_dir)


def _run_id(directory: Path) -> str | None:
    try:
        record = read_run_if_any(directory)
    except ValueError:  # an unreadable run.json names no run
        return None
    return record.run_id if record is not None else None


def find_id(ids: list[str], instance: str) -> str:
    """The id meant by `instance`: an exact id, an id as written in file names, or a unique part of either."""
    from steps.reports.html.dialogues import file_id

    if instance in ids:
        return instance
    by_file = {file_id(i): i for i in ids}
    if instance in by_file:
        return by_file[instance]
    matches = list(dict.fromkeys(i for i in ids if instance in i or instance in file_id(i)))
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise ValueError(f"no instance matching '{instance}' in this run ({len(ids)} instances, e.g. {ids[0]})")
    raise ValueError(f"'{instance}' matches {len(matches)} instances, e.g. {', '.join(matches[:3])}; be more precise")


def _benchmark_dir(bench: str, run: str, paths: Paths) -> Path | None:
    """The agent directory of a benchmark for an agent alias or run id, or None when it has no run there."""
    from steps.reports.html.viewer import marker as marker_of

    root = paths.runs(bench)
    marker = marker_of(bench)
    if (root / run / marker).is_file():
        return root / run
    for spec in sorted(root.glob("*/run.json")):
        if _run_id(spec.parent) == run and (spec.parent / marker).is_file():
            return spec.parent
    return None


def show_any(
    run: str, instance: str, benchmark: str | None = None, paths: Paths = PATHS, console: Console | None = None
) -> None:
    """Find the dialogue in every benchmark the run has (or the one named) and print it."""
    console = console or Console()
    known = dialogue_benchmarks()
    if benchmark is not None and benchmark not in known:
        raise ValueError(f"unknown benchmark '{benchmark}'; dialogue benchmarks: {', '.join(known)}")
    wanted = [benchmark] if benchmark else list(known)
    where = {b: d for b in wanted if (d := _benchmark_dir(b, run, paths)) is not None}
    if not where:
        raise ValueError(f"no run '{run}' of {' or '.join(wanted)} under {paths.data}; run `dvc repro` first")
    found, errors = {}, []
    for bench, folder in where.items():
        ids = _ids(bench, folder)
        try:
            found[bench] = find_id(ids, instance)
        except ValueError as e:
            errors.append(f"{bench}: {e}")
    if not found:
        raise ValueError("; ".join(errors))
    if len(found) > 1:
        raise ValueError(f"'{instance}' is in {', '.join(found)}; add --benchmark")
    bench, iid = next(iter(found.items()))
    printer = registration(bench).show
    if printer is not None:
        calls = read_usage_log(_cache_dir(), where[bench] / USAGE, last=True).drop_duplicates("call_key")
        usage = {r["call_key"]: r for r in calls.to_dict("records")}
        for line in resolve(printer)(where[bench], iid, usage):
            console.print(line)
        return
    print_record(bench, iid, where[bench], console)


def _key(records: list[dict]) -> str:
    """The field that names a record: its instance id, or its title where an instance has several records (an
    item asked in more than one variant)."""
    ids = [r["iid"] for r in records]
    return "iid" if len(set(ids)) == len(ids) else "title"


def _ids(bench: str, folder: Path) -> list[str]:
    records = _records(bench, folder)
    return [r[_key(records)] for r in records]


def _records(bench: str, folder: Path) -> list[dict]:
    from steps.reports.html.viewer import agent_dialogues

    return agent_dialogues(bench, folder)


def print_record(bench: str, iid: str, folder: Path, console: Console) -> None:
    """A dialogue as the transcript viewer records it: header, scores with the judge's reasons, turns, deliverable."""
    records = _records(bench, folder)
    record = next(r for r in records if r[_key(records)] == iid)
    score = "—" if record["score"] is None else f"{record['score']:.1f}"
    console.print(
        f"[bold]{escape(record['title'])}[/]  {bench}, agent [cyan]{escape(record['agent'])}[/], "
        f"{escape(record['env'])}: ended by [bold]{escape(record['end'] or '—')}[/]; score {score}"
    )
    for i, (speaker, addressee, stage, model, kind, text, note) in enumerate(record["turns"]):
        to = f" → {escape(addressee)}" if addressee else ""
        where = f"[magenta]{escape(stage)}[/] " if stage else ""
        extra = "" if kind == "utterance" else f" [yellow]({escape(kind)})[/]"
        console.print(f"[dim]{i:>3}[/] {where}[bold]{escape(speaker)}{to}[/]{extra} [dim]{escape(model)}[/]")
        if text:
            console.print("      " + escape(text).replace("\n", "\n      "))
        if note:
            console.print(f"      [dim]{escape(note)}[/]")
    for name, value, judge, reason in record["scores"]:
        shown = "—" if value is None else f"{value:g}"
        console.print(f"  [green]{escape(name)}[/] = {shown} [dim]({escape(judge)})[/] {escape(reason)}")
    if record["result"]["text"]:
        console.print(Panel(escape(record["result"]["text"]), title=record["result"]["title"]))

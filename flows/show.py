"""`jurisflow show RUN INSTANCE [--benchmark B]`: print one simulated dialogue readably in the terminal.

Every dialogue benchmark (a registration with `dialogues=True`: J1, MILE, UCL-Bench and PLawBench consultations),
each run in data/<benchmark>/runs/<agent>/. RUN is an agent alias (its directory there) or a run id (from a run.json
there); INSTANCE is an instance or item id as in the tables (`CR/judge/000b1a0e-…`), as in transcript file
names (`CR_judge_000b1a0e-…`), or any unique part of either. Without --benchmark every benchmark the agent
has a run of is searched. J1 turns show their index, the court stage when known, the speaker and the
addressee, the text, and the model call behind it (tokens; latency or cache hit from the usage log under
`llm.cache_dir`), under a header naming the court failure causes (read from the turns as the judge stage reads
them); the other benchmarks' turns show speaker → addressee and model, then the scores with the judge's reasons.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel

from flows.kit.config import PARAMS_FILE
from flows.kit.models import read_usage_log
from flows.kit.paths import DIALOGUES, PATHS, USAGE, Paths
from steps.benchmarks import dialogue_benchmarks
from steps.j1.envs.catalog import SCENARIOS
from steps.j1.eval.failures import causes_of_rows
from steps.llm import LLMSettings
from steps.runs import read_run_if_any
from steps.simulate.transcript import lines


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


def run_dir(run: str, runs_dir: Path | None = None) -> Path:
    """The directory of a J1 run (under `runs_dir`, default data/j1/runs) given by agent alias or run id."""
    runs_dir = runs_dir or PATHS.runs("j1")
    if (runs_dir / run / "turns.parquet").is_file():
        return runs_dir / run
    for spec in sorted(runs_dir.glob("*/run.json")):
        if _run_id(spec.parent) == run:
            return spec.parent
    known = ", ".join(p.parent.name for p in sorted(runs_dir.glob("*/turns.parquet"))) or "none"
    raise ValueError(f"no run '{run}' under {runs_dir} (agents with runs: {known}); run `dvc repro` first")


def find_instance(deliverables: pd.DataFrame, instance: str) -> str:
    return find_id(deliverables.instance_id.tolist(), instance)


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


def show(run: str, instance: str, runs_dir: Path | None = None, console: Console | None = None) -> None:
    console = console or Console()
    where = run_dir(run, runs_dir)
    deliverables = pd.read_parquet(where / DIALOGUES)
    iid = find_instance(deliverables, instance)
    d = deliverables[deliverables.instance_id == iid].iloc[0].to_dict()
    turns = pd.read_parquet(where / "turns.parquet")
    turns = turns[turns.instance_id == iid].sort_values("turn_index").to_dict("records")
    calls = read_usage_log(_cache_dir(), where / USAGE, last=True).drop_duplicates("call_key")
    usage = {r["call_key"]: r for r in calls.to_dict("records")}
    # role -> label as the turns wrote it (every role that is addressed also speaks)
    labels = {t["speaker"]: t["speaker_label"] for t in turns}
    scenario = SCENARIOS.get(d["scenario"])
    causes = (", ".join(causes_of_rows(turns, scenario)) if scenario else "") or "none"
    console.print(
        f"[bold]{escape(iid)}[/]  agent [cyan]{d['agent']}[/], run {d['run_id']}: ended by "
        f"[bold]{d['ended_by']}[/] after {d['exchanges']} exchanges; failure causes: {causes}"
    )
    for line in lines(turns, labels, usage):
        to = f" → {escape(line.addressee)}" if line.addressee else ""
        stage = f"[magenta]{escape(line.stage)}[/] " if line.stage else ""
        kind = "" if line.kind == "utterance" else f" [yellow]({line.kind})[/]"
        console.print(f"[dim]{line.turn_index:>3}[/] {stage}[bold]{escape(line.speaker)}{to}[/]{kind}")
        if line.text and line.kind != "check":
            console.print("      " + escape(line.text).replace("\n", "\n      "))
        if line.note:
            console.print(f"      [dim]{escape(line.note)}[/]")
    text = d["deliverable"] if isinstance(d["deliverable"], str) else "(none)"
    title = f"deliverable: {d['deliverable_kind']}" + (" (asked for after the turn cap)" if d["forced"] else "")
    console.print(Panel(escape(text), title=title))


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
    if bench == "j1":
        show(run, iid, runs_dir=paths.runs("j1"), console=console)
        return
    print_record(bench, iid, where[bench], console)


def _ids(bench: str, folder: Path) -> list[str]:
    if bench == "j1":
        return pd.read_parquet(folder / DIALOGUES, columns=["instance_id"]).instance_id.tolist()
    return [r["iid"] if bench != "plawbench" else r["title"] for r in _records(bench, folder)]


def _records(bench: str, folder: Path) -> list[dict]:
    from steps.reports.html.viewer import agent_dialogues

    return agent_dialogues(bench, folder)


def print_record(bench: str, iid: str, folder: Path, console: Console) -> None:
    """A MILE, UCL-Bench or PLawBench dialogue: header, scores with the judge's reasons, turns, deliverable."""
    record = next(r for r in _records(bench, folder) if (r["title"] if bench == "plawbench" else r["iid"]) == iid)
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

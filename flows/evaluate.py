"""`jurisflow eval`: register one model as an agent in params.yaml and run its stages and the reports with DVC.

    jurisflow eval --agent NAME --model MODEL [--api-base URL] [--api-key-env VAR]
                   [--benchmarks lawbench,j1,mile,ucl,plawbench] [--limit N]

The agent's entry (`agents.<NAME>`: model, endpoint, `benchmarks`, `limit`) and the `runs` lists that dvc.yaml
iterates are rewritten in place (comments and the other agents' entries kept, under params.yaml's write lock), then
DVC runs, with one Prefect server for all of them (as `make run`), exactly the stages the plan (`plan`) lists and
prints first: the shared stages they need (the ones no agent owns), the agent's own stages, then each benchmark's
report, but a report only when every other agent's stage it reads is up to date. Another agent's stage is never run:
a stale one (its parameters changed, its outputs missing) would make model calls nobody asked for here, so the report
that reads it is not refreshed, and the eval names the stale stages and the command that runs them (exit 1). Evals in
one project run one at a time (flows/kit/locks.py: a second waits for the first). At the end the agent's headline
numbers are read back from the refreshed reports' CSV twins and printed beside the paper's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

import pandas as pd
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from flows.dvc_cli import command as dvc_command
from flows.kit.config import BENCHMARKS, PARAMS_FILE, ParamsError, load_params, read_params_data, runs_of
from flows.kit.locks import one_eval, params_writing
from flows.kit.paths import PATHS
from flows.kit.stages import benchmark_targets, stage_table
from steps.benchmarks import benchmark as registration
from steps.tables import write_text_atomic

REPORTS = PATHS.reports


def _yaml() -> YAML:
    y = YAML()  # round-trip: comments, key order and quoting are kept
    y.preserve_quotes = True
    y.width = 120
    y.indent(mapping=2, sequence=4, offset=2)
    return y


def _flow_list(names: list[str]) -> CommentedSeq:
    seq = CommentedSeq(names)
    seq.fa.set_flow_style()
    return seq


def register(
    params_file: Path,
    agent: str,
    model: str,
    api_base: str | None = None,
    api_key_env: str | None = None,
    benchmarks: list[str] | None = None,
    limit: int | None = None,
) -> None:
    """Write (or update) `agents.<agent>` and the `runs` lists in params.yaml; validated before anything is written,
    under params.yaml's write lock (flows/kit/locks.py), so that a concurrent writer's entry is never lost.

    An existing entry keeps its other settings (decoding, concurrency …) and the benchmarks it already takes part
    in (`benchmarks` are added to them); `benchmarks` None means all five (the key is then left out); `limit` None
    removes the agent's own cap."""
    with params_writing(params_file):
        y = _yaml()
        read_params_data(params_file)  # not YAML, a key twice, empty: one line, nothing written
        data = y.load(params_file.read_text(encoding="utf-8"))
        agents = data.setdefault("agents", CommentedMap())
        entry = agents.get(agent)
        existed = isinstance(entry, dict)
        if not existed:
            entry = CommentedMap()
            agents[agent] = entry
        entry["model"] = model
        for key, value in (("api_base", api_base), ("api_key_env", api_key_env)):
            if value is not None:
                entry[key] = value
        if isinstance(entry.get("benchmarks"), list) and benchmarks is not None:  # eval on one more benchmark: added
            benchmarks = [*entry["benchmarks"], *benchmarks]
        elif existed and "benchmarks" not in entry:
            benchmarks = list(BENCHMARKS)  # an existing agent that takes part in everything keeps doing so
        if benchmarks is None or set(benchmarks) >= set(BENCHMARKS):
            entry.pop("benchmarks", None)
        else:
            entry["benchmarks"] = _flow_list([b for b in BENCHMARKS if b in benchmarks])
        if limit is None:
            entry.pop("limit", None)
        else:
            entry["limit"] = limit
        sync(data)
        buffer = StringIO()
        y.dump(data, buffer)
        text = buffer.getvalue()
        check = params_file.with_name(f".{params_file.name}.check")
        try:
            check.write_text(text, encoding="utf-8")
            load_params(check)  # a bad entry stops here, params.yaml untouched
        except ParamsError as err:
            raise ParamsError(str(err).replace(str(check), str(params_file))) from None
        finally:
            check.unlink(missing_ok=True)
        write_text_atomic(params_file, text)


def sync(data: dict) -> None:
    """Rewrite `runs` (per benchmark, the agents taking part) from `agents` in a round-trip YAML document."""
    runs = data.get("runs")
    if not isinstance(runs, dict):
        runs = CommentedMap()
        data["runs"] = runs
    for benchmark, names in runs_of(dict(data.get("agents") or {})).items():
        runs[benchmark] = _flow_list(names)


def sync_file(params_file: Path) -> None:
    """`jurisflow params sync`: rewrite params.yaml's `runs` from `agents` (under its write lock), then validate it."""
    with params_writing(params_file):
        read_params_data(params_file)  # not YAML, a key twice, empty: one line, nothing written
        y = _yaml()
        data = y.load(params_file.read_text(encoding="utf-8"))
        sync(data)
        buffer = StringIO()
        y.dump(data, buffer)
        write_text_atomic(params_file, buffer.getvalue())
    load_params(params_file)


@dataclass(frozen=True)
class Plan:
    """What one eval runs, in order: `first` (the shared stages its stages and reports need, then the agent's own
    stages), then each report (with any shared stage between it and the agents' stages) when `others[report]`, the
    other agents' stages it reads, are all up to date."""

    first: list[str]
    reports: dict[str, list[str]]
    others: dict[str, list[str]]

    def text(self, agent: str) -> str:
        reports = " ".join(t for ts in self.reports.values() for t in ts)
        return (
            f"eval {agent}: dvc repro --single-item {' '.join(self.first)}; then {reports or 'no report'} (a report "
            "only when the other agents' stages it reads are up to date; those are never run here)"
        )


def plan(agent: str, benchmarks: list[str]) -> Plan:
    """The stages `jurisflow eval` runs for one agent (params.yaml already lists it), from DVC's stage graph: never
    a per-agent stage of another agent, which would make model calls nobody asked for."""
    import networkx as nx
    from dvc.repo import Repo

    table = stage_table()
    chosen = [b for b in BENCHMARKS if b in benchmarks]
    reports = [r for b in chosen if (r := f"{b}_report") in table]
    own = [t for b in chosen for t in benchmark_targets(b, agent) if t not in reports]  # its per-agent stages

    def per_agent(name: str) -> bool:
        return "@" in name and table[name.split("@")[0]].per_agent

    with Repo() as repo:
        graph = repo.index.graph
        by_name = {s.addressing: s for s in graph.nodes}
        missing = [t for t in own + reports if t not in by_name]
        if missing:
            raise ParamsError(f"dvc.yaml has no stage {', '.join(missing)} (run `jurisflow params sync`?)")
        rank = {name: i for i, name in enumerate(table)}  # what a stage needs first, else dvc.yaml's order
        order = [
            s.addressing
            for s in nx.lexicographical_topological_sort(
                graph.reverse(), key=lambda s: (rank.get(s.addressing.split("@")[0], len(rank)), s.addressing)
            )
        ]
        up = {t: {s.addressing for s in nx.descendants(graph, by_name[t])} for t in own + reports}
        reads_agents = {
            n
            for n in order
            if not per_agent(n) and any(per_agent(s.addressing) for s in nx.descendants(graph, by_name[n]))
        }
    needed = set(own).union(*up.values())
    first = [n for n in order if n in needed and (n in own or not (per_agent(n) or n in reads_agents or n in reports))]
    if any(s in reads_agents or (per_agent(s) and s not in own) for t in own for s in up[t]):
        raise ParamsError(f"dvc.yaml: a stage of agent {agent} reads another agent's outputs; eval cannot run it alone")
    return Plan(
        first,
        {r: [n for n in order if n in up[r] and n in reads_agents] + [r] for r in reports},
        {r: [n for n in order if n in up[r] and per_agent(n) and n not in own] for r in reports},
    )


def stale_stages(stages: list[str] | None = None, env: dict[str, str] | None = None) -> list[str]:
    """Which of the stages (None: every stage) `dvc status` reports as not up to date; when it cannot tell (it
    failed), all of them, so that nothing is taken as up to date unchecked."""
    if stages == []:
        return []
    done = subprocess.run(
        dvc_command("--wait-for-lock", "status", "--json", *(stages or [])), capture_output=True, text=True, env=env
    )
    try:
        if done.returncode == 0:
            return sorted(json.loads(done.stdout or "{}"))
    except ValueError:
        pass
    reason = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
    return [*(stages or []), f"(dvc status failed: {reason})"]


def run_plan(agent: str, chosen: Plan, say: Callable[[str], None]) -> tuple[int, list[str]]:
    """Run the plan with one Prefect server and one stage server for every stage (as `make run`), as one run
    session: `llm.budget_usd` caps what its stages spend together (steps/llm/ledger.py). The exit code of `dvc
    repro` (1 when a report was left stale) and the reports refreshed."""
    from flows import pipeline
    from steps.llm.ledger import session_env

    bin_dir = Path(sys.executable).parent
    env = session_env({**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"})  # stages: python
    refreshed: list[str] = []
    with pipeline.served(env) as served:

        def repro(stages: list[str]) -> int:
            return subprocess.run(
                dvc_command("--wait-for-lock", "repro", "--single-item", *stages), env=served
            ).returncode

        code = repro(chosen.first)
        if code:
            return code, refreshed
        for report, stages in chosen.reports.items():
            stale = stale_stages(chosen.others[report], served)
            if stale:
                say(
                    f"{report} not refreshed: it reads other agents' stages that are not up to date, which this eval "
                    f"of {agent} does not run (their model calls): {', '.join(stale)}; run them and the report with "
                    f"`dvc repro {report}` (or `jurisflow eval` for each of those agents)"
                )
                code = 1
                continue
            failed = repro(stages)
            if failed:
                return failed, refreshed
            refreshed.append(report)
    return code, refreshed


def _read_csv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, keep_default_na=False, na_values=[""])  # the agent named `null` stays a name


def headlines(
    agent: str, benchmarks: list[str], reports: Path = REPORTS
) -> list[tuple[str, float | None, int | None, list[tuple[str, float]]]]:
    """(label, ours, n, paper rows [(model, value)], best first) for each headline of the agent's benchmarks,
    read from the reports' CSV twins; values × the headline's scale. The headlines are those its registration
    labels (steps/<benchmark>/benchmark.py)."""
    out = []
    for name in (b for b in BENCHMARKS if b in benchmarks):
        path = reports / f"{name}.csv"
        frame = (
            _read_csv(path)
            if path.is_file()
            else pd.DataFrame(columns=["table", "scope", "metric", "agent", "source", "value", "n"])
        )
        for h in registration(name).headlines:
            if h.label is None:
                continue
            rows = frame[(frame["table"] == h.table) & (frame.scope == h.scope) & (frame.metric == h.metric)]
            ours = rows[(rows.source == "ours") & (rows.agent.astype(str) == agent)]
            paper = rows[rows.source == "paper"].dropna(subset=["value"]).sort_values("value", ascending=False)
            value = float(ours.value.iloc[0]) * h.scale if len(ours) and pd.notna(ours.value.iloc[0]) else None
            n = int(ours.n.iloc[0]) if len(ours) and pd.notna(ours.n.iloc[0]) else None
            out.append((h.label, value, n, [(str(r.agent), float(r.value) * h.scale) for r in paper.itertuples()]))
    return out


def headline_text(agent: str, benchmarks: list[str], reports: Path = REPORTS) -> str:
    """The lines `jurisflow eval` prints at its end: ours (n) beside the paper's best and its number of models."""
    lines = [f"{agent}: headline numbers (from reports/<benchmark>.csv)"]
    for label, value, n, paper in headlines(agent, benchmarks, reports):
        ours = "not in the report" if value is None else f"{value:.2f}" + (f" (n {n})" if n is not None else "")
        ref = (
            (
                f"paper: best {paper[0][0]} {paper[0][1]:.2f}, median {pd.Series([v for _, v in paper]).median():.2f}"
                f" over {len(paper)} models"
            )
            if paper
            else "paper: no published number"
        )
        lines.append(f"  {label:<28} {ours:<22} {ref}")
    return "\n".join(lines)


def check_api_key_env(api_key_env: str | None) -> None:
    """`--api-key-env` names a variable that is set here; a ParamsError that never repeats the value (a key given
    by mistake must not reach params.yaml, the terminal or a log)."""
    from steps.llm.config import check_api_key_env as check_name

    if api_key_env is None:
        return
    try:
        check_name(api_key_env)
    except ValueError as err:
        raise ParamsError(f"--api-key-env: {err}; nothing was written") from None
    if not os.environ.get(api_key_env):
        raise ParamsError(
            "--api-key-env: the environment variable it names is not set (or empty) here, so every call would fail; "
            "export it (it takes the variable's NAME, e.g. DEEPSEEK_API_KEY, never the key itself); nothing was written"
        )


def evaluate(
    agent: str,
    model: str,
    api_base: str | None = None,
    api_key_env: str | None = None,
    benchmarks: list[str] | None = None,
    limit: int | None = None,
    params_file: Path = PARAMS_FILE,
) -> int:
    """Register the agent, run the plan, print its headline numbers; the exit code of `dvc repro` (1 too when a
    report was not refreshed because another agent's stage it reads is stale)."""
    chosen = list(benchmarks or BENCHMARKS)
    unknown = sorted(set(chosen) - set(BENCHMARKS))
    if unknown:
        raise ParamsError(f"--benchmarks: unknown {', '.join(unknown)}; expected some of {', '.join(BENCHMARKS)}")
    check_api_key_env(api_key_env)

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    with one_eval(params_file, agent, say):
        register(params_file, agent, model, api_base, api_key_env, chosen, limit)
        stage_plan = plan(agent, chosen)
        say(f"agents.{agent} written to {params_file}; {stage_plan.text(agent)}")
        code, refreshed = run_plan(agent, stage_plan, say)
        done = [b for b in chosen if f"{b}_report" in refreshed]
        print(headline_text(agent, done) if done else f"{agent}: no report refreshed, so no headline numbers")
        stale = stale_stages()
    print("dvc status: " + (f"not up to date: {', '.join(stale)}" if stale else "every stage up to date"))
    if code:
        print(f"jurisflow eval exited {code}: see the lines above", file=sys.stderr)
    return code

"""`jurisflow eval`: register one model as an agent in params.yaml and run its stages and the reports with DVC.

    jurisflow eval --agent NAME --model MODEL [--api-base URL] [--api-key-env VAR]
                   [--benchmarks lawbench,j1,mile,ucl,plawbench] [--limit N] [--repeats K] [--max-tokens N]
                   [--temperature T]
                   [--concurrency N] [--max-failed-fraction F] [--judge MODEL] [--environment MODEL] [--dry-run]

It first prints the model of every role its benchmarks call (the agent, the environment, the judge, a seat such
as UCL's reference), marking the scripted stand-ins, and what the agent's server reports of its context size and
parallel slots (`steps.llm.vllm.server_limits`): the agent's concurrency is its slots unless `--concurrency` says.
The agent's entry (`agents.<NAME>`: model, endpoint, `benchmarks`, `limit`, `decoding`, `concurrency`), the shared
roles `judge` and `environment` when given, `llm.max_failed_fraction` when given, and the `runs` lists that dvc.yaml
iterates are rewritten in place (comments and every other value kept, under params.yaml's write lock), then DVC
runs, with one Prefect server for all of them (as `make run`), exactly the stages the plan (`plan`) lists and prints
first: the shared stages two of its benchmarks need, then one benchmark at a time its own shared stages, the agent's
stages and its report (a benchmark that fails stops there; the others still run and are recorded), but a report only
when every other agent's stage it reads is up to date, and at the end the HTML report. Another agent's stale stage
(its parameters changed, its outputs missing, as every stand-in's in a fresh clone) is run only when it calls no
real model (`offline_stage`: a scripted agent under scripted roles); any other would make model calls nobody asked
for here, so the report that reads it is not refreshed, and the eval names the stale stages and the command that
runs them (exit 1). Evals in one project run one at a time (flows/kit/locks.py: a second waits for the first). At
the end the agent's headline numbers are printed as `jurisflow results` shows them, from the same rows
(flows.results.headline_rows: the refreshed reports' CSV twins and the papers' headline tables), under the same
labels and beside the same paper rows, then a summary naming each benchmark that failed (exit 1 when one did).

`--dry-run` validates the same changes in memory and prints them (a diff of params.yaml), the stage plan and the
estimate (flows/estimate.py) of what the agent's stages would send; it sends no model call and writes nothing.

Both end their preamble with the context check (flows/context_check.py): when the agent's server (or a shared role's)
reports its context size, the items whose longest request (prompt tokens + max_tokens, from the estimate) would not
fit are listed before anything is sent. It never stops the eval: an agent whose dialogue outgrows its context ends it
`context_exceeded`, the model's limit.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from contextlib import chdir
from dataclasses import dataclass, field, replace
from io import StringIO
from itertools import pairwise
from pathlib import Path
from typing import Any

import pandas as pd
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import CommentMark
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.tokens import CommentToken

from flows.context_check import check_before_run
from flows.dvc_cli import command as dvc_command
from flows.kit.config import BENCHMARKS, PARAMS_FILE, Params, ParamsError, load_params, read_params_data, runs_of
from flows.kit.locks import one_eval, params_writing
from flows.kit.paths import PATHS
from flows.kit.stages import benchmark_targets, stage_table
from steps.benchmarks import benchmark as registration
from steps.benchmarks import names as benchmark_names
from steps.tables import write_text_atomic

REPORTS = PATHS.reports
HTML_REPORT = "html_report"
STAND_IN = "stand-in: numbers are not the paper's"
ROLES = ("environment", "judge")  # the shared roles `--environment` and `--judge` set
ENDPOINT_KEYS = ("api_base", "api_key_env", "concurrency")  # where a model is served: a new role model drops them


class _Representer(RoundTripRepresenter):
    """Round-trip YAML that writes None as `null`, as params.yaml spells it (ruamel's default: an empty value)."""


_Representer.add_representer(
    type(None),
    lambda r, _: r.represent_scalar("tag:yaml.org,2002:null", "null"),
)


def _yaml() -> YAML:
    y = YAML()  # round-trip: comments, key order and quoting are kept
    y.Representer = _Representer
    y.preserve_quotes = True
    y.width = 120
    y.indent(mapping=2, sequence=4, offset=2)
    return y


def _load(text: str) -> CommentedMap:
    """params.yaml as a round-trip document whose sections can take new keys: the comment lines after a section's
    last value (ruamel keeps them with that value, so a key added there would be written below them) are moved to
    the next section's leading comment, where they are written in the same place (`_yaml().dump` of it alone gives
    back the same text)."""
    data = _yaml().load(text)
    keys = list(data)
    for section, following in pairwise(keys):
        found = _last_comment(data[section])
        if found is None:
            continue
        slot, at = found
        eol, _, rest = slot[at].value.partition("\n")
        if not rest.strip():
            continue
        slot[at] = CommentToken(eol + "\n", slot[at].start_mark) if eol.strip() else None
        tokens: list[CommentToken] = []
        for line in rest.rstrip("\n").split("\n"):
            if line.strip() or not tokens:
                text = line.lstrip()
                tokens.append(CommentToken(text + "\n", CommentMark(len(line) - len(text))))
            else:
                tokens[-1].value += "\n"  # a blank line
        before = data.ca.items.setdefault(following, [None, [], None, None])
        before[1] = tokens + (before[1] or [])
    return data


def _last_comment(node: Any) -> tuple[list, int] | None:
    """Where ruamel keeps the comment after a block collection's last value: (its comment slot, the index in it)."""
    if isinstance(node, CommentedMap | CommentedSeq) and len(node) and not node.fa.flow_style():
        last = list(node)[-1] if isinstance(node, CommentedMap) else len(node) - 1
        inner = _last_comment(node[last])
        if inner is not None:
            return inner
        slot, at = node.ca.items.get(last), 2 if isinstance(node, CommentedMap) else 0
        return (slot, at) if slot and slot[at] is not None else None
    return None


def _flow_list(names: list[str]) -> CommentedSeq:
    seq = CommentedSeq(names)
    seq.fa.set_flow_style()
    return seq


@dataclass(frozen=True)
class Settings:
    """What `jurisflow eval` (and `jurisflow estimate` of an eval) sets besides the agent's name and model. None
    leaves a value as params.yaml has it, except `limit` (None removes the agent's cap) and `benchmarks` (None: all
    five; an existing entry's benchmarks are kept and these added)."""

    api_base: str | None = None
    api_key_env: str | None = None
    benchmarks: list[str] | None = None
    limit: int | None = None
    repeats: int | None = None  # agents.<name>.repeats: runs of each of its stages (1 removes the key)
    max_tokens: int | None = None  # agents.<name>.decoding.max_tokens
    temperature: float | None = None  # agents.<name>.decoding.temperature
    concurrency: int | None = None  # agents.<name>.concurrency (default: the server's parallel slots)
    timeout_s: float | None = None  # agents.<name>.timeout_s (default: sized to the server's measured speed)
    max_failed_fraction: float | None = None  # llm.max_failed_fraction: every stage's tolerance
    judge: str | None = None  # judge.model: the role every agent's judged stages share
    environment: str | None = None  # environment.model: the role every agent's dialogues share
    protocol: str | None = None  # <benchmark>.protocol of each benchmark of the eval: ours | paper (steps/protocol.py)


def _set(mapping: CommentedMap, key: str, value: Any) -> None:
    """`mapping[key] = value` unless it already holds that value (so its quoting and comments stay as written)."""
    if key not in mapping or mapping[key] != value:
        mapping[key] = value


def _copy(value: Any) -> Any:
    """A value to write in a second place of the document (the same list twice would be written as a YAML alias)."""
    return _flow_list(list(value)) if isinstance(value, list) else value


def apply(data: CommentedMap, agent: str, model: str | None, settings: Settings) -> list[str]:
    """Write the eval's settings into a round-trip params.yaml document: the agent's entry, the shared roles and
    `llm.max_failed_fraction` when given, and `runs` from `agents`. The notes on what changes beyond the agent's own
    entry (every agent shares those). `model` None keeps the entry's."""
    if not isinstance(data.get("agents"), dict):
        data["agents"] = CommentedMap()
    agents = data["agents"]
    if not agents:
        agents.fa.set_block_style()  # `agents: {}` given its first agent: a block, as every other section
    entry = agents.get(agent)
    existed = isinstance(entry, dict)
    if not existed:
        entry = CommentedMap()
        agents[agent] = entry
    model = model or entry.get("model")
    if not model:
        raise ParamsError(f"agents.{agent}: not in params.yaml; give its --model to add it")
    _set(entry, "model", model)
    for key, value in (("api_base", settings.api_base), ("api_key_env", settings.api_key_env)):
        if value is not None:
            _set(entry, key, value)
    benchmarks = settings.benchmarks
    if isinstance(entry.get("benchmarks"), list) and benchmarks is not None:  # eval on one more benchmark: added
        benchmarks = [*entry["benchmarks"], *benchmarks]
    elif existed and "benchmarks" not in entry:
        benchmarks = list(BENCHMARKS)  # an existing agent that takes part in everything keeps doing so
    if benchmarks is None or set(benchmarks) >= set(BENCHMARKS):
        entry.pop("benchmarks", None)
    elif list(entry.get("benchmarks") or []) != (ordered := [b for b in BENCHMARKS if b in benchmarks]):
        entry["benchmarks"] = _flow_list(ordered)
    if settings.limit is None:
        entry.pop("limit", None)
    else:
        _set(entry, "limit", settings.limit)
    if settings.repeats == 1:
        entry.pop("repeats", None)
    elif settings.repeats is not None:
        _set(entry, "repeats", settings.repeats)
    for key, number in (("max_tokens", settings.max_tokens), ("temperature", settings.temperature)):
        if number is None:
            continue
        if not isinstance(entry.get("decoding"), dict):
            entry["decoding"] = CommentedMap()
            entry["decoding"].fa.set_flow_style()
        _set(entry["decoding"], key, number)
    if settings.concurrency is not None:
        _set(entry, "concurrency", settings.concurrency)
    if settings.timeout_s is not None:
        _set(entry, "timeout_s", settings.timeout_s)
    notes = []
    for role, role_model in zip(ROLES, (settings.environment, settings.judge), strict=True):
        if role_model is not None:
            notes += _set_role(data, role, role_model, entry)
    if settings.protocol is not None:
        notes += _set_protocol(data, settings.protocol, settings.benchmarks or list(BENCHMARKS))
    if settings.max_failed_fraction is not None:
        if not isinstance(data.get("llm"), dict):
            data["llm"] = CommentedMap()
        before = data["llm"].get("max_failed_fraction", Params.model_fields["llm"].default.max_failed_fraction)
        if before != settings.max_failed_fraction:
            notes.append(
                f"llm.max_failed_fraction: {before} → {settings.max_failed_fraction} (every stage's tolerance of "
                "failed calls, kept in params.yaml for later runs too; no stage depends on it)"
            )
        _set(data["llm"], "max_failed_fraction", settings.max_failed_fraction)
    sync(data)
    return notes


def _set_protocol(data: CommentedMap, protocol: str, benchmarks: list[str]) -> list[str]:
    """Set `<benchmark>.protocol` of each benchmark; the notes on what changes (every agent's runs of it)."""
    if protocol not in ("ours", "paper"):
        raise ParamsError(f"--protocol: '{protocol}' is not a protocol; use ours or paper")
    notes = []
    for benchmark in benchmarks:
        if not isinstance(data.get(benchmark), dict):
            data[benchmark] = CommentedMap()
        before = data[benchmark].get("protocol") or "ours"
        _set(data[benchmark], "protocol", protocol)
        if before != protocol:
            notes.append(
                f"{benchmark}.protocol: {before} → {protocol}: its roles change for every agent (`jurisflow params "
                "check` shows them)"
            )
    return notes


def refuse_missing_keys(params: Params, benchmarks: list[str]) -> None:
    """A ParamsError with one line per API key the roles of `benchmarks` need and the environment lacks, when any
    of them runs the paper's protocol (before any call)."""
    from steps.protocol import missing_keys

    if not any(params.section_named(b).protocol == "paper" for b in benchmarks):
        return
    missing = missing_keys(params.role_models(benchmarks))
    if missing:
        raise ParamsError(
            "the paper's protocol needs API keys that are not set (nothing was written or called):\n"
            + "\n".join(f"  {line}" for line in missing)
        )


def role_summary(params: Params, benchmarks: list[str], agent: str | None = None, reports: Path = REPORTS) -> list[str]:
    """Per benchmark, the role models its stages call (`role model (decoding)`), its `protocol` and the protocol
    label of `agent`'s numbers (its report's twin; without one, the label of params.yaml before any data size): what
    the final printout says the eval measured with."""
    from steps.protocol import describe_roles

    recorded: dict[str, str] = {}
    if agent is not None:
        try:
            from flows.results import headline_rows

            rows = headline_rows(reports)
            ours = rows[(rows.source != "paper") & (rows.agent.astype(str) == agent)]
            recorded = {
                str(b): str(p) for b, p in zip(ours.benchmark, ours.protocol, strict=True) if isinstance(p, str)
            }
        except FileNotFoundError:
            recorded = {}
    lines = []
    for benchmark in benchmarks:
        record = params.protocol_record(benchmark, agent=agent if agent in params.agents else None)
        roles = describe_roles(record) or "no model roles (rule-scored)"
        label = recorded.get(benchmark, record.label)
        lines.append(f"  {benchmark} (protocol: {params.section_named(benchmark).protocol}): {roles}")
        lines.append(f"    label: {label}")
    return lines


def _set_role(data: CommentedMap, role: str, model: str, agent_entry: CommentedMap) -> list[str]:
    """Set the shared role's model. The agent's own model takes the agent's endpoint and bound with it; another
    new model drops the old one's (its provider's API; an endpoint of its own is set in params.yaml). Its other
    keys (decoding, timeout_s) stay. The note when the model changes."""
    if not isinstance(data.get(role), dict):
        data[role] = CommentedMap()
    entry = data[role]
    before = entry.get("model") or Params.model_fields[role].default.model
    _set(entry, "model", model)
    if model == agent_entry["model"]:
        for key in ENDPOINT_KEYS:
            if key in agent_entry:
                _set(entry, key, _copy(agent_entry[key]))
            else:
                entry.pop(key, None)
    elif model != before:
        for key in ENDPOINT_KEYS:
            entry.pop(key, None)
    if model == before:
        return []
    return [
        f"{role}: {before} → {model}: a role every agent shares, so every agent's stages that call it are stale now; "
        "this eval runs only its own agent's, and a report that reads another agent's waits for them (`jurisflow "
        "agents run`)"
    ]


def updated_text(params_file: Path, agent: str, model: str | None, settings: Settings) -> tuple[str, str, list[str]]:
    """params.yaml's text now, as `register` would write it, and the notes on what changes (nothing written)."""
    read_params_data(params_file)  # not YAML, a key twice, empty: one line
    old = params_file.read_text(encoding="utf-8")
    data = _load(old)
    notes = apply(data, agent, model, settings)
    buffer = StringIO()
    _yaml().dump(data, buffer)
    return old, buffer.getvalue(), notes


def preview(params_file: Path, agent: str, model: str | None, settings: Settings) -> Params:
    """The parameters an eval with these settings would run on, validated in memory (params.yaml untouched)."""
    _, text, _ = updated_text(params_file, agent, model, settings)
    return load_params(params_file, text)


def register(params_file: Path, agent: str, model: str, settings: Settings | None = None) -> list[str]:
    """Write (or update) `agents.<agent>`, the roles and settings given and the `runs` lists in params.yaml (see
    `Settings`); validated before anything is written, under params.yaml's write lock (flows/kit/locks.py), so that a
    concurrent writer's entry is never lost, and not written at all when nothing changes. The notes of `apply`.

    An existing entry keeps its other settings and the benchmarks it already takes part in."""
    with params_writing(params_file):
        old, text, notes = updated_text(params_file, agent, model, settings or Settings())
        load_params(params_file, text)  # a bad entry stops here, params.yaml untouched
        if text != old:
            write_text_atomic(params_file, text)
    return notes


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
    """What one eval runs, in order: `common` (the shared stages two or more of its benchmarks need), then per
    benchmark `groups[benchmark]` (the shared stages only it needs, then the agent's own stages) and its report
    (`reports[report]`: with any shared stage between it and the agents' stages) when `others[report]`, the other
    agents' stages it reads, are all up to date; at the end the HTML report when its inputs (`html`) exist (None: no
    such stage). `first` is every stage before the reports: `common` and the groups, in the stage graph's order."""

    first: list[str]
    reports: dict[str, list[str]]
    others: dict[str, list[str]]
    common: list[str] = field(default_factory=list)
    groups: dict[str, list[str]] = field(default_factory=dict)
    html: list[str] | None = None

    def text(self, agent: str) -> str:
        steps = [f"shared: {' '.join(self.common)}"] if self.common else []
        for benchmark, stages in self.groups.items():
            report = " ".join(self.reports.get(f"{benchmark}_report", []))
            steps.append(f"{benchmark}: {' '.join(stages)}" + (f" then {report}" if report else ""))
        html = f"; then {HTML_REPORT}" if self.html is not None else ""
        return (
            f"eval {agent}: dvc repro --single-item, one benchmark at a time (a failure stops its own benchmark "
            f"only): {'; '.join(steps)}{html} (a report only when the other agents' stages it reads are up to date; "
            "those of scripted agents under scripted roles are built first, offline; any other is never run here)"
        )


def plan(agent: str, benchmarks: list[str]) -> Plan:
    """The stages `jurisflow eval` runs for one agent (params.yaml already lists it), from DVC's stage graph: never
    a per-agent stage of another agent, which would make model calls nobody asked for."""
    import networkx as nx
    from dvc.repo import Repo

    table = stage_table()
    chosen = [b for b in BENCHMARKS if b in benchmarks]
    reports = [r for b in chosen if (r := f"{b}_report") in table]
    own_of = {b: [t for t in benchmark_targets(b, agent) if t not in reports] for b in chosen}  # its own stages
    own = [t for b in chosen for t in own_of[b]]

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
        view = by_name.get(HTML_REPORT)
        html = None if view is None else [str(d.def_path) for d in view.deps]
    needed = set(own).union(*up.values())
    first = [n for n in order if n in needed and (n in own or not (per_agent(n) or n in reads_agents or n in reports))]
    if any(s in reads_agents or (per_agent(s) and s not in own) for t in own for s in up[t]):
        raise ParamsError(f"dvc.yaml: a stage of agent {agent} reads another agent's outputs; eval cannot run it alone")
    need = {
        b: {n for n in first if n in own_of[b] or any(n in up[t] for t in [*own_of[b], f"{b}_report"] if t in up)}
        for b in chosen
    }
    common = [n for n in first if sum(n in need[b] for b in chosen) != 1]
    return Plan(
        first,
        {r: [n for n in order if n in up[r] and n in reads_agents] + [r] for r in reports},
        {r: [n for n in order if n in up[r] and per_agent(n) and n not in own] for r in reports},
        common,
        {b: [n for n in first if n in need[b] and n not in common] for b in chosen},
        html,
    )


def offline_stage(params: Params, stage: str) -> bool:
    """Whether DVC stage `stage` (`name@agent[-setting]`) calls only scripted models: its agent is a scripted
    stand-in and so is every role of its benchmark (environment, judge, seats such as UCL's reference). Such a stage
    costs no model call, so `eval` runs it when a report needs it (a fresh clone has no outputs of the stand-ins)."""
    from steps.pipeline import owner

    name, _, rest = stage.partition("@")
    agent = next((a for a in params.agents if rest == a or rest.startswith(f"{a}-")), None)
    benchmark = owner(name)
    if agent is None or benchmark is None or not params.agent(agent).is_scripted:
        return False
    return all(params.role_model(benchmark, role).is_scripted for role in params.section_named(benchmark).ROLES)


def all_offline(stages: list[str]) -> bool:
    """Whether every one of the stages calls only scripted models (`offline_stage`, under params.yaml); False when
    params.yaml cannot be read."""
    try:
        params = load_params(PARAMS_FILE)
    except ParamsError:
        return False
    return all(offline_stage(params, s) for s in stages)


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


@dataclass
class Outcome:
    """What `run_plan` did: the reports refreshed (`html_report` too), the failures (benchmark or `html_report` →
    why), and the reports not refreshed because other agents' stages they read are stale (report → those)."""

    refreshed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    not_refreshed: dict[str, list[str]] = field(default_factory=dict)

    @property
    def code(self) -> int:
        return 1 if self.failed or self.not_refreshed else 0

    def summary(self, agent: str, benchmarks: list[str]) -> str:
        """One line per benchmark of the eval (and the HTML report when it failed): done, failed, or not refreshed."""
        lines = [f"eval {agent}: summary"]
        for b in (b for b in BENCHMARKS if b in benchmarks):
            if b in self.failed:
                state = f"FAILED: {self.failed[b]}"
            elif f"{b}_report" in self.not_refreshed:
                state = f"its stages done; {b}_report not refreshed (other agents' stages it reads are stale)"
            else:
                state = "done, report refreshed" if f"{b}_report" in self.refreshed else "done"
            lines.append(f"  {b:<10} {state}")
        if HTML_REPORT in self.failed:
            lines.append(f"  {HTML_REPORT:<10} FAILED: {self.failed[HTML_REPORT]}")
        return "\n".join(lines)


def run_plan(agent: str, chosen: Plan, say: Callable[[str], None]) -> Outcome:
    """Run the plan with one Prefect server for every stage (as `make run`), as one run session: `llm.budget_usd`
    caps what its stages spend together (steps/llm/ledger.py). One `dvc repro --single-item` for the common stages,
    then one per benchmark (its stages, then its report), so that a benchmark that fails loses none of the others'
    results; then the HTML report when a report was refreshed and its inputs exist."""
    from flows import children, pipeline
    from steps.llm.ledger import session_env

    bin_dir = Path(sys.executable).parent
    env = session_env({**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"})  # stages: python
    out = Outcome()
    with children.interruptible(), pipeline.served(env, announce=True) as served:

        def repro(stages: list[str]) -> bool:
            """Whether `dvc repro --single-item STAGES` succeeded."""
            if not stages:
                return True
            argv = dvc_command("--wait-for-lock", "repro", "--single-item", *stages)
            return children.run(argv, env=served) == 0

        def left(stages: list[str]) -> str:
            stale = stale_stages(stages, served)
            return f"not up to date: {', '.join(stale)}" if stale else "dvc repro failed"

        if not repro(chosen.common):
            why = f"a stage its benchmarks share failed ({left(chosen.common)})"
            say(f"{why}: no benchmark can run")
            out.failed = dict.fromkeys(chosen.groups, why)
            return out
        for benchmark, stages in chosen.groups.items():
            report = f"{benchmark}_report"
            if not repro(stages):
                out.failed[benchmark] = left(stages)
                say(f"{benchmark} failed ({out.failed[benchmark]}); the other benchmarks go on")
                continue
            if report not in chosen.reports:
                continue
            stale = stale_stages(chosen.others[report], served)
            if stale and all_offline(stale):  # a fresh clone has none of the stand-ins' outputs
                say(
                    f"{report}: the scripted agents' stages it reads are not up to date here (a fresh clone has none "
                    f"of their outputs); running them, offline, no model called: {', '.join(stale)}"
                )
                if children.run(dvc_command("--wait-for-lock", "repro", *stale), env=served) != 0:
                    out.failed[benchmark] = left(stale)
                    say(f"{report}: the scripted agents' stages failed ({out.failed[benchmark]})")
                    continue
                stale = []
            if stale:
                say(
                    f"{report} not refreshed: it reads other agents' stages that are not up to date, which this eval "
                    f"of {agent} does not run (their model calls): {', '.join(stale)}; run them and the report with "
                    f"`dvc repro {report}` (or `jurisflow eval` for each of those agents)"
                )
                out.not_refreshed[report] = stale
                continue
            if not repro(chosen.reports[report]):
                out.failed[benchmark] = left(chosen.reports[report])
                say(f"{report} failed ({out.failed[benchmark]}); the other benchmarks go on")
                continue
            out.refreshed.append(report)
        if chosen.html is None:
            return out
        missing = [p for p in chosen.html if not Path(p).exists()]
        if not out.refreshed:
            say(f"{HTML_REPORT} not rebuilt: no report was refreshed")
        elif missing:
            say(
                f"{HTML_REPORT} not rebuilt: its inputs {', '.join(missing)} do not exist here (benchmarks this "
                f"project has not run); `dvc repro {HTML_REPORT}` runs what writes them, then it"
            )
        elif repro([HTML_REPORT]):
            out.refreshed.append(HTML_REPORT)
        else:
            out.failed[HTML_REPORT] = left([HTML_REPORT])
    return out


@dataclass(frozen=True)
class HeadlineLine:
    """One headline number of an eval's agent as `jurisflow results` shows it: the leaderboard's `column`, the
    agent's `label` there, its `cell` (None: not in the report) and the paper rows [(model, value)], best first."""

    column: str
    label: str
    cell: str | None
    paper: list[tuple[str, float]]


def headlines(agent: str, benchmarks: list[str], reports: Path = REPORTS) -> list[HeadlineLine]:
    """Each leaderboard column of the agent's benchmarks (their registrations' headlines with a `column`), read
    from the same rows as `jurisflow results` (flows.results.headline_rows: the reports' CSV twins and the papers'
    headline tables): our number and label, the paper's numbers (all on 0-100)."""
    from flows.results import headline_rows
    from steps.results import PAPER, cell

    try:
        rows = headline_rows(reports)
    except FileNotFoundError:  # no twin yet: every number is missing
        rows = pd.DataFrame(columns=["column", "agent", "source", "label", "value", "n", "n_failed"])
    out = []
    for name in (b for b in benchmark_names() if b in benchmarks):  # the leaderboard's order
        for column in (h.column for h in registration(name).headlines if h.column):
            mine = rows[rows["column"] == column]
            ours = mine[(mine.source != PAPER) & (mine.agent.astype(str) == agent)]
            paper = mine[(mine.source == PAPER) & mine.value.notna()].sort_values("value", ascending=False)
            found = ours.iloc[0] if len(ours) else None
            out.append(
                HeadlineLine(
                    column,
                    agent if found is None else _with_protocol(str(found.label), found.get("protocol")),
                    None
                    if found is None
                    else cell(found.value, found.n, found.n_failed, found.get("ci_low"), found.get("ci_high")),
                    [(str(r.agent), float(r.value)) for r in paper.itertuples()],
                )
            )
    return out


def _with_protocol(label: str, protocol: Any) -> str:
    """The label with its protocol label (`[paper protocol]` or the deviations), as every report shows it."""
    return f"{label} [{protocol}]" if isinstance(protocol, str) and protocol else label


def headline_text(agent: str, benchmarks: list[str], reports: Path = REPORTS) -> str:
    """The lines `jurisflow eval` prints at its end: per leaderboard column, the agent as `jurisflow results`
    labels it, its number (n, failed calls) and the paper's best and median over its models."""
    lines = [f"{agent}: headline numbers, as `jurisflow results` shows them (from reports/<benchmark>.csv)"]
    found = headlines(agent, benchmarks, reports)
    width = max((len(h.label) for h in found), default=0)
    for h in found:
        ours = "not in the report" if h.cell is None else h.cell
        values = [v for _, v in h.paper]
        ref = (
            f"paper: best {h.paper[0][0]} {h.paper[0][1]:.1f}, median {pd.Series(values).median():.1f} over "
            f"{len(values)} models"
            if h.paper
            else "paper: no published number"
        )
        lines.append(f"  {h.column:<18} {h.label:<{width}}  {ours:<22} {ref}")
    if any(h.label != agent for h in found):
        lines.append("  [scripted]: a scripted stand-in (the agent, or a role those numbers use) touched them:")
        lines.append("  not a measurement; [limit N]: the run's first N items only; [paper protocol] or the ways the")
        lines.append(
            "  run differs from the paper's (its roles, settings, data): compare with the paper's numbers only then"
        )
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


def chosen_benchmarks(benchmarks: list[str] | None) -> list[str]:
    """The benchmarks of an eval (None: all five), in pipeline order; an unknown name is a ParamsError."""
    unknown = sorted(set(benchmarks or []) - set(BENCHMARKS))
    if unknown:
        raise ParamsError(f"--benchmarks: unknown {', '.join(unknown)}; expected some of {', '.join(BENCHMARKS)}")
    return [b for b in BENCHMARKS if b in (benchmarks or BENCHMARKS)]


def roles_text(params: Params, agent: str, benchmarks: list[str]) -> list[str]:
    """One line per model the benchmarks' stages call: the agent, the shared roles their stages depend on (the
    environment, the judge) and the models their declarations seat (UCL's reference); scripted ones marked as
    stand-ins, whose numbers test the pipeline and bound the metrics but are not the paper's."""
    from steps.pipeline import owner, stages
    from steps.registry import resolve

    declared = [s for s in stages().values() if owner(s.name) in benchmarks]
    models = {f"agent {agent}": params.agent(agent)}
    for role in ROLES:
        if any(role in s.params or role in s.roles for s in declared):
            for b in benchmarks:
                if role in params.section_named(b).ROLES:
                    models[f"{role} ({b})"] = params.role_model(b, role)
    for s in declared:
        if s.seat is not None:
            seated = resolve(s.seat)(params)
            models[f"{s.name} ({seated.name})"] = seated
    return [f"{who}: {m.model}" + (f" ({STAND_IN})" if m.is_scripted else "") for who, m in models.items()]


DEFAULT_MAX_TOKENS = 1024  # a reply's cap when a server reports its context and no cap is set (at most a quarter)


def probed(params: Params, agent: str, settings: Settings, say: Callable[[str], None], dry: bool = False) -> Settings:
    """Ask the agent's server (when it has an `api_base`) for its context size and parallel slots, say what it
    reports and the concurrency the eval uses; the settings with `concurrency` = its slots unless given, and
    `max_tokens` = `DEFAULT_MAX_TOKENS` (at most a quarter of the context) when the server reports a context and the
    agent has no cap. A server that gives no HTTP answer at all is a
    ParamsError before anything is written (a warning in a dry run), as is a `max_tokens` that leaves no room for a
    prompt in the context."""
    from steps.llm.vllm import server_limits

    entry = params.agents[agent]
    if entry.api_base is None:
        return settings
    bases = entry.api_base if isinstance(entry.api_base, list) else [entry.api_base]
    found = server_limits(bases[0], entry.model.split("/", 1)[1])
    replicas = f" (the first of {len(bases)} replicas)" if len(bases) > 1 else ""
    if not found.reachable:
        down = (
            f"agent {agent}'s server {bases[0]}{replicas} does not answer ({found.source}): start it (`jurisflow "
            "serve local`, `jurisflow serve vllm`) or correct --api-base"
        )
        if not dry:
            raise ParamsError(f"{down}; nothing was run or written")
        say(f"warning: {down}; the dry run goes on, the eval would stop here")
    if settings.concurrency is not None:
        concurrency, why = settings.concurrency, "--concurrency"
    elif found.slots is not None:
        concurrency, why = found.slots, "the server's parallel slots"
        settings = replace(settings, concurrency=found.slots)
    elif entry.concurrency is not None:
        concurrency, why = entry.concurrency, f"agents.{agent}.concurrency"
    else:
        concurrency, why = params.llm.concurrency, "llm.concurrency"
    say(f"agent {agent}'s server {bases[0]}{replicas}: {found.describe()}; concurrency {concurrency} ({why})")
    max_tokens = entry.decoding.max_tokens
    if found.context is not None and max_tokens is not None and max_tokens >= found.context:
        raise ParamsError(
            f"max_tokens {max_tokens} is not below the server's context of {found.context} tokens: no prompt would "
            "fit; give a smaller --max-tokens; nothing was written"
        )
    if found.context is not None and max_tokens is None:
        capped = min(DEFAULT_MAX_TOKENS, found.context // 4)
        settings = replace(settings, max_tokens=capped)
        say(
            f"agent {agent}: max_tokens {capped:,} (without a cap a reply may run to the end of the "
            f"{found.context:,}-token context, minutes per call on a small server); --max-tokens sets it"
        )
    return settings


TIMEOUT_MARGIN = 2.0  # the sized timeout: this many times the slowest call the measured speeds predict


def sized_timeout(
    params_file: Path, agent: str, model_string: str, settings: Settings, say: Callable[[str], None], dry: bool
) -> Settings:
    """The settings with the agent's call timeout sized to its server, when it has none and its server reports a
    context: the slowest call it may get (a prompt that fills the context but for `max_tokens`, then `max_tokens`
    generated) at the speeds `models check` measured (flows/calibrate.py; measured here, three short calls, when no
    record exists and this is no dry run), with every slot busy (each call gets 1/slots of the server), ×
    `TIMEOUT_MARGIN`; never below `llm.timeout_s`."""
    import math
    import uuid

    from flows import calibrate
    from flows.kit.models import model_session
    from steps.llm.vllm import server_limits

    params = preview(params_file, agent, model_string, settings)
    entry = params.agents[agent]
    if entry.api_base is None or settings.timeout_s is not None or entry.timeout_s is not None:
        return settings
    base = entry.api_base[0] if isinstance(entry.api_base, list) else entry.api_base
    found = server_limits(base, entry.model.split("/", 1)[1])
    if found.context is None:
        return settings
    context, slots = found.context, entry.concurrency or found.slots or 1
    model = params.agent(agent)
    record = calibrate.lookup(calibrate.load(), model)
    if record is None and not dry:
        with model_session(params, f"eval-calibration-{uuid.uuid4().hex[:8]}", models=[model]) as session:
            measured = calibrate.measure(session.door, model)
        if isinstance(measured, str):
            say(f"agent {agent}: its speed could not be measured ({measured}); timeout {params.llm.timeout_s:g} s")
            return settings
        calibrate.save([measured])
        record = measured
    if record is None:
        say(f"agent {agent}: the eval measures its speed first (three short calls) and sizes its call timeout")
        return settings
    reply = model.decoding.max_tokens or DEFAULT_MAX_TOKENS
    slowest = record.call_seconds((context - reply) * 1.0, reply) * slots
    timeout = max(params.llm.timeout_s, float(math.ceil(slowest * TIMEOUT_MARGIN / 10) * 10))
    say(
        f"agent {agent}: timeout {timeout:g} s per call (a {reply:,}-token reply after a "
        f"{context - reply:,}-token prompt at {record.prefill_tps:g} and {record.generation_tps:g} tokens/s, "
        f"{slots} slot(s) busy, x{TIMEOUT_MARGIN:g}, at least llm.timeout_s); --timeout sets it"
    )
    return replace(settings, timeout_s=timeout)


def prepare(
    params_file: Path,
    agent: str,
    model: str,
    settings: Settings,
    chosen: list[str],
    say: Callable[[str], None],
    dry: bool = False,
) -> Settings:
    """Validate the eval's parameters in memory, say the model of each role (stand-ins marked) and what the agent's
    server reports; the settings to register (`probed`)."""
    params = preview(params_file, agent, model, settings)
    for line in roles_text(params, agent, chosen):
        say(line)
    return probed(params, agent, settings, say, dry)


def scratch_plan(params_file: Path, text: str, agent: str, chosen: list[str]) -> Plan:
    """The plan of an eval whose params.yaml would be `text`, from DVC's graph of a scratch copy of dvc.yaml and
    that text (nothing written in the project; DVC names stages relative to the working directory, so the plan is
    made there)."""
    with tempfile.TemporaryDirectory(prefix="jurisflow-plan-") as tmp:
        root = Path(tmp)
        shutil.copyfile(params_file.parent / "dvc.yaml", root / "dvc.yaml")
        (root / "params.yaml").write_text(text, encoding="utf-8")
        (root / ".dvc").mkdir()
        (root / ".dvc" / "config").write_text("[core]\n    no_scm = true\n    analytics = false\n", encoding="utf-8")
        with chdir(root):
            return plan(agent, chosen)


def dry_run(params_file: Path, agent: str, model: str, settings: Settings, chosen: list[str]) -> int:
    """`jurisflow eval --dry-run`: the roles, the server's limits, the change to params.yaml as a diff, the stage
    plan and the estimate of the agent's stages, on stdout; no model call, nothing written. 1 when the estimate
    cannot run (the item tables it reads are missing)."""
    from flows.estimate import estimate, load_calibrations, show, show_context, targets, up_to_date

    settings = prepare(params_file, agent, model, settings, chosen, print, dry=True)
    settings = sized_timeout(params_file, agent, model, settings, print, dry=True)
    old, new, notes = updated_text(params_file, agent, model, settings)
    params = load_params(params_file, new)
    for note in notes:
        print(note)
    try:
        refuse_missing_keys(params, chosen)
    except ParamsError as err:  # a dry run says so and goes on: it calls nothing
        print(f"warning: {err}")
    diff = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), str(params_file), "as eval would write it"
    )
    print("".join(diff).rstrip("\n") or f"{params_file}: no change")
    print(scratch_plan(params_file, new, agent, chosen).text(agent))
    try:
        shared_roles_change = settings.judge or settings.environment  # dvc status of the file says nothing then
        fixed = [] if shared_roles_change else up_to_date(params_file, targets(params, [agent], chosen))
        report = estimate(params, [agent], chosen, calibrations=load_calibrations(), up_to_date=fixed)
    except FileNotFoundError as err:
        print(
            f"error: {err} (the estimate reads what the stages before the first model call write: run `dvc repro` "
            "of those first)",
            file=sys.stderr,
        )
        return 1
    show(report)
    show_context(report)
    print(f"dry run: no model was called and nothing was written ({params_file} is unchanged)")
    return 0


def evaluate(
    agent: str,
    model: str,
    settings: Settings | None = None,
    params_file: Path = PARAMS_FILE,
    dry: bool = False,
) -> int:
    """Register the agent, run the plan, print its headline numbers and the summary; 1 when a benchmark failed or a
    report was not refreshed because another agent's stage it reads is stale. `dry`: `dry_run`."""
    settings = settings or Settings()
    chosen = chosen_benchmarks(settings.benchmarks)
    check_api_key_env(settings.api_key_env)
    if dry:
        return dry_run(params_file, agent, model, settings, chosen)

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    with one_eval(params_file, agent, say):
        refuse_missing_keys(preview(params_file, agent, model, settings), chosen)  # before any call or write
        settings = prepare(params_file, agent, model, settings, chosen, say)
        settings = sized_timeout(params_file, agent, model, settings, say, dry=False)
        check_before_run(preview(params_file, agent, model, settings), [agent], chosen, say, params_file=params_file)
        for note in register(params_file, agent, model, settings):
            say(note)
        if warning := load_params(params_file).repeats_warning(agent):  # repeats that cannot vary: said, not refused
            say(f"warning: {warning}")
        stage_plan = plan(agent, chosen)
        say(f"agents.{agent} written to {params_file}; {stage_plan.text(agent)}")
        outcome = run_plan(agent, stage_plan, say)
        done = [b for b in chosen if f"{b}_report" in outcome.refreshed]
        print(headline_text(agent, done) if done else f"{agent}: no report refreshed, so no headline numbers")
        print("roles and protocol per benchmark (`jurisflow params check` says which follow the paper):")
        print("\n".join(role_summary(load_params(params_file), chosen, agent)))
        stale = stale_stages()
    print("dvc status: " + (f"not up to date: {', '.join(stale)}" if stale else "every stage up to date"))
    print(outcome.summary(agent, chosen))
    if outcome.code:
        failed = f"failed: {', '.join(outcome.failed)}; " if outcome.failed else ""
        print(f"jurisflow eval exited {outcome.code}: {failed}see the lines above", file=sys.stderr)
    return outcome.code

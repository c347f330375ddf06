"""`jurisflow agents`: several agents evaluated at once, on DVC and Prefect (no scheduler of our own).

    jurisflow agents run [--agents a,b] [--jobs N] [--pool NAME]   three `dvc repro` phases in one Prefect flow
    jurisflow agents deploy [--pool NAME]                           the work pool and the `agent-stages` deployment
    jurisflow agents worker [--pool NAME] [--limit N]               a Prefect worker in this clone

`run` reproduces in three phases: (1) what no agent's stage depends on, once: the stages every agent needs (ingest,
extract, the J1 instances, the rubrics, the UCL reference …) and those that need no agent (LawBench's scoring of the
published predictions); (2) each agent's own stages, one Prefect task run per agent and benchmark (`chains`), up to
`--jobs` at a time;
(3) the reports and what else is stale. Phases 1 and 3 run up to `--jobs` benchmarks at a time (`lanes`: one
benchmark's stages in order per lane; a stage no benchmark declares before or after them). Lanes and agents run as
concurrent `dvc --wait-for-lock repro --single-item` processes in this workspace: DVC releases its repository lock
while a stage's command runs, writes each stage's dvc.lock entry under the lock, and its read/write locks keep two
processes off one output (`--single-item`, because checking a stage takes a write lock on its outputs, which fails
while another process's stage reads them); the response cache is SQLite in WAL mode and every stage reports to the
one Prefect server. With `--pool`, phase 1 ends with `dvc push --run-cache`, each agent is a run of the deployment
`agent-stages/<pool>` that a Prefect worker in another clone picks up (`dvc repro --pull` of the agent's stages
there, then `dvc push --run-cache`), and phase 3 is `dvc repro --pull` here: DVC restores the agents' stages from
the pushed run cache instead of running them.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from prefect.task_runners import ThreadPoolTaskRunner
from prefect.utilities.callables import parameter_schema

from flows.dvc_cli import command as dvc_command
from flows.kit.config import BENCHMARKS, PARAMS_FILE, ParamsError, load_params
from flows.kit.stages import stage_table
from steps.llm.ledger import SESSION_ENV, session_env

if TYPE_CHECKING:
    import networkx as nx
    from prefect.client.schemas.objects import FlowRun

POOL = "jurisflow"
FLOW_NAME = "agent-stages"  # the deployment is `agent-stages/<pool>`
ENTRYPOINT = "flows.agents:agent_stages_run"  # imported in the worker's clone (its working directory)
WORKER_HOME = "{{ $JURISFLOW_HOME }}"  # the worker's clone: Prefect fills it from the worker's environment
CHECKED = ("params.yaml", "dvc.yaml")  # a worker's clone must hold the same files (and the same git commit)


def _bin(name: str) -> str:
    return str(Path(sys.executable).parent / name)


def agent_stages(agent: str, benchmarks: list[str]) -> list[str]:
    """The agent's own DVC stages in the benchmarks it takes part in, in dvc.yaml's order (a run before its judge;
    not the reports, which read every agent)."""
    table = stage_table().values()
    return [t for b in BENCHMARKS if b in benchmarks for s in table if s.benchmark == b for t in s.targets(agent)]


def report_stages(benchmarks: set[str]) -> list[str]:
    """Each benchmark's report stage, `<benchmark>_report`."""
    return [f"{b}_report" for b in BENCHMARKS if b in benchmarks and f"{b}_report" in stage_table()]


@dataclass(frozen=True)
class Plan:
    shared: list[str]  # phase 1: every stage upstream of the agents' stages
    agents: dict[str, list[str]]  # phase 2: each agent's own stages
    final: list[str]  # phase 3: `dvc repro` targets (empty: the whole pipeline)


def make_plan(agents: list[str] | None = None, params_file: Path = PARAMS_FILE) -> Plan:
    """Which stages each phase runs, from params.yaml and DVC's stage graph. `agents` None: every agent, and phase 3
    is the whole pipeline (as `make run`); a subset: phase 3 is their benchmarks' reports."""
    params = load_params(params_file)
    chosen = list(params.agents) if agents is None else agents
    unknown = [a for a in chosen if a not in params.agents]
    if unknown:
        raise ParamsError(f"unknown agent(s) {', '.join(unknown)}; {params_file} lists: {', '.join(params.agents)}")
    per_agent = {a: agent_stages(a, list(params.agents[a].benchmarks)) for a in chosen}
    per_agent = {a: stages for a, stages in per_agent.items() if stages}
    final = [] if agents is None else report_stages({b for a in chosen for b in params.agents[a].benchmarks})
    every_agent = [t for a in params.agents for t in agent_stages(a, list(params.agents[a].benchmarks))]
    mine = [s for stages in per_agent.values() for s in stages]
    return Plan(sorted(set(upstream(mine)) | set(independent(every_agent, final))), per_agent, final)


def _graph() -> nx.DiGraph:
    """DVC's stage graph of this repository (an edge runs from a stage to one it depends on), read once per
    working directory by this process (dvc.yaml does not change during a run)."""
    return _graph_of(str(Path.cwd()))


@functools.cache
def _graph_of(root: str) -> nx.DiGraph:
    from dvc.repo import Repo

    with Repo(root) as repo:
        return repo.index.graph


def upstream(targets: list[str]) -> list[str]:
    """Every stage the targets depend on, directly or not, that is not itself a target (DVC's own graph)."""
    import networkx as nx

    graph = _graph()
    by_name = {s.addressing: s for s in graph.nodes}
    missing = [t for t in targets if t not in by_name]
    if missing:
        raise ParamsError(f"dvc.yaml has no stage {', '.join(missing)} (run `jurisflow params sync`?)")
    found = set().union(*(nx.descendants(graph, by_name[t]) for t in targets)) if targets else set()
    return sorted({s.addressing for s in found} - set(targets))


def independent(agent_targets: list[str], final: list[str]) -> list[str]:
    """The stages that neither are an agent's nor depend on one (LawBench's scoring of the published predictions):
    among the whole pipeline (`final` empty) or what the `final` targets depend on. Phase 1 runs them beside the
    shared stages instead of leaving them to phase 3, where nothing runs beside them."""
    import networkx as nx

    graph = _graph()
    by_name = {s.addressing: s for s in graph.nodes}
    agents = [by_name[t] for t in agent_targets if t in by_name]
    downstream = set(agents).union(*(nx.ancestors(graph, s) for s in agents))
    pool = set(graph.nodes) if not final else set().union(*(nx.descendants(graph, by_name[t]) for t in final))
    return sorted(s.addressing for s in pool - downstream)


@dataclass(frozen=True)
class Lanes:
    """Stages run two or more at a time: `before` in one `dvc repro`, then each lane (one benchmark's stages, in
    order) as `dvc repro --single-item` beside the others, then `after` in one `dvc repro`."""

    before: list[str]
    lanes: list[list[str]]
    after: list[str]


def lanes(stages: list[str], jobs: int) -> Lanes:
    """Split `stages` by the benchmark that declares each (benchmarks share no stage and read none of each other's
    outputs, so their stages can run at once): a shared stage that a benchmark's stage here depends on runs before,
    any other shared stage after; the benchmarks go to `jobs` lanes, the largest first to the shortest lane."""
    import networkx as nx

    from steps.pipeline import owner

    graph = _graph()
    chosen = set(stages)
    nodes = {s.addressing: s for s in graph.nodes if s.addressing in chosen}
    order = [s.addressing for s in reversed(list(nx.topological_sort(graph))) if s.addressing in chosen]
    owners = {name: owner(name.split("@")[0]) for name in order}
    owned = [nodes[n] for n in order if owners[n]]
    needed = set().union(*(nx.descendants(graph, s) for s in owned))
    before = [n for n in order if not owners[n] and nodes[n] in needed]
    after = [n for n in order if not owners[n] and nodes[n] not in needed]
    groups: dict[str, list[str]] = {}
    for name in order:
        if owners[name]:
            groups.setdefault(str(owners[name]), []).append(name)
    out: list[list[str]] = [[] for _ in range(max(1, min(jobs, len(groups))))]
    for group in sorted(groups.values(), key=len, reverse=True):
        min(out, key=len).extend(group)
    return Lanes(before, [lane for lane in out if lane], after)


def chains(agents: dict[str, list[str]]) -> list[tuple[str, str, list[str]]]:
    """Phase 2's units of work: each agent's stages split by the benchmark that declares them, as (agent,
    benchmark, its stages in order), interleaved benchmark by benchmark (every agent's first benchmark, then every
    agent's second …). Workers that take them in this order stay busy until the queue's short tail, whatever each
    agent's mix (one lane per agent left a core idle while the slower agent finished), and one benchmark's failure
    stops none of the agent's other benchmarks."""
    from steps.pipeline import owner

    per_agent: dict[str, dict[str, list[str]]] = {}
    for agent, stages in agents.items():
        for stage in stages:
            per_agent.setdefault(agent, {}).setdefault(str(owner(stage.split("@")[0])), []).append(stage)
    order = list(dict.fromkeys(b for mine in per_agent.values() for b in mine))
    return [(a, b, mine[b]) for b in order for a, mine in per_agent.items() if b in mine]


def fingerprint(root: Path = Path()) -> dict[str, str]:
    """What a worker's clone must share with the coordinator: the sha256 of params.yaml and dvc.yaml, and the git
    commit when there is one (the same stage definitions, parameters and code give the same DVC stage hashes)."""
    out = {name: hashlib.sha256((root / name).read_bytes()).hexdigest() for name in CHECKED}
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True)
    if head.returncode == 0:
        out["git"] = head.stdout.strip()
    return out


_PRINT = threading.Lock()


def _say(label: str, line: str) -> None:
    with _PRINT:
        sys.stdout.write(f"[{label}] {line.rstrip()}\n")
        sys.stdout.flush()


def _stream(label: str, args: list[str], env: dict[str, str]) -> int:
    """Run a command, its output lines prefixed with `label` (several run at once); its exit code."""
    from flows import children

    proc = children.start(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    assert proc.stdout is not None
    for line in proc.stdout:
        _say(label, line)
    return children.finish(proc)


def repro_args(targets: list[str], *, pull: bool = False, single: bool = False) -> list[str]:
    """`dvc --wait-for-lock repro [--pull] [--single-item] <targets>`: waits for another process's repository lock
    (held only between stages) instead of failing. `single`: the targets alone, in the order given, their upstream
    not even checked (DVC takes a write lock on every stage it checks, which fails while another agent's stage
    reads that stage's outputs)."""
    flags = (["--pull"] if pull else []) + (["--single-item"] if single else [])
    return dvc_command("--wait-for-lock", "repro", *flags, *targets)


def stale(stages: list[str]) -> bool:
    """Whether `dvc status` finds any of the stages out of date (it takes only read locks)."""
    import json

    args = [_bin("dvc"), "--wait-for-lock", "status", "--json", *stages]
    done = subprocess.run(args, env=_env(), capture_output=True, text=True)
    try:
        return done.returncode != 0 or bool(json.loads(done.stdout or "{}"))
    except ValueError:
        return True


def push_args(targets: list[str] | None = None) -> list[str]:
    """`dvc --wait-for-lock push --run-cache [<targets>]`: the outputs and DVC's record of the runs that made them,
    from which `dvc repro --pull` elsewhere restores a stage instead of running it."""
    return dvc_command("--wait-for-lock", "push", "--run-cache", *(targets or []))


def _env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}


@task(name="dvc repro", cache_policy=NO_CACHE)
def repro_here(label: str, targets: list[str]) -> int:
    """Stages of one agent (or one lane) in this workspace, beside the others' (the shared stages are up to date)."""
    return _stream(label, repro_args(targets, single=True), _env())


@task(name="agent on the pool", cache_policy=NO_CACHE)
def repro_on_pool(agent: str, targets: list[str], shared: list[str], pool: str, expected: dict[str, str]) -> int:
    """One agent's stages as a run of the deployment `agent-stages/<pool>`, which a worker picks up; waits for it."""
    from prefect.deployments import run_deployment

    # cast: prefect's async_dispatch types the result as "a FlowRun, or a coroutine when called from async code";
    # this caller is sync
    done = cast(
        "FlowRun",
        run_deployment(
            f"{FLOW_NAME}/{pool}",
            parameters={
                "agent": agent,
                "targets": targets,
                "shared": shared,
                "expected": expected,
                "session": os.environ.get(SESSION_ENV, ""),
            },
            flow_run_name=f"agent {agent}",
            timeout=None,
        ),
    )
    ok = done.state is not None and done.state.is_completed()
    _say(agent, f"{'done' if ok else 'failed'} on work pool {pool!r}: flow run {done.name} ({done.state_name})")
    return 0 if ok else 1


@flow(name="agents")
def agents_flow(plan: Plan, pool: str | None = None, jobs: int = 2) -> dict[str, int]:
    """The three phases; the exit code of each (phase 2: one per agent). A failed phase ends the flow. Phases 1
    and 3 also run `jobs` benchmarks' stages at a time (`lanes`)."""
    from flows.kit.monitor import mark_process

    mark_process()
    codes: dict[str, int] = {}
    if plan.shared:
        codes["shared"] = in_lanes("shared", lanes(plan.shared, jobs))
        if not codes["shared"] and pool:
            codes["shared"] = _stream("shared", push_args(plan.shared), _env())
        if codes["shared"]:
            return codes
    if pool:
        expected = fingerprint()
        futures = {
            a: repro_on_pool.with_options(task_run_name=f"agent {a}").submit(a, t, plan.shared, pool, expected)
            for a, t in plan.agents.items()
        }
        codes |= {a: f.result() for a, f in futures.items()}
    else:  # each agent's stages of one benchmark, in order: `jobs` at a time, pulled from one queue (`chains`)
        queued = [
            (a, repro_here.with_options(task_run_name=f"agent {a} · {b}").submit(f"{a} {b}", stages))
            for a, b, stages in chains(plan.agents)
        ]
        codes |= dict.fromkeys(plan.agents, 0)
        for a, future in queued:
            codes[a] = codes[a] or future.result()
    if any(codes.values()):
        return codes
    if not plan.final and not pool:  # the reports of the benchmarks, a few at a time, before the whole pipeline
        done = set(plan.shared).union(*plan.agents.values())
        step = lanes([s.addressing for s in _graph().nodes if s.addressing not in done], jobs)
        codes["final"] = in_lanes("final", Lanes(step.before, step.lanes, []))  # `after`: the whole pipeline's
        if codes["final"]:
            return codes
    codes["final"] = _stream("final", repro_args(plan.final, pull=bool(pool)), _env())
    return codes


def in_lanes(label: str, plan: Lanes) -> int:
    """`plan.before`, then its lanes at once (a task run each), then `plan.after`; the first non-zero exit code."""
    if plan.before and (code := _stream(label, repro_args(plan.before), _env())):
        return code
    many = len(plan.lanes) > 1
    futures = [
        repro_here.with_options(task_run_name=f"{label} {i + 1}" if many else label).submit(
            f"{label} {i + 1}" if many else label, lane
        )
        for i, lane in enumerate(plan.lanes)
    ]
    code = next((c for c in (f.result() for f in futures) if c), 0)
    if code or not plan.after:
        return code
    return _stream(label, repro_args(plan.after), _env())


def run(agents: list[str] | None = None, jobs: int = 2, pool: str | None = None) -> int:
    """`jurisflow agents run`: the three phases in one Prefect flow (with one Prefect server, as `make run`, unless
    PREFECT_API_URL names one) and one run session (`JURISFLOW_RUN_SESSION`: `llm.budget_usd` caps what every stage
    of the three phases spends together, steps/llm/ledger.py); 0 when every phase succeeded."""
    plan = make_plan(agents)
    print(
        f"phase 1 (shared): {' '.join(plan.shared) or 'nothing'}\n"
        + "".join(f"phase 2 ({a}): {' '.join(t)}\n" for a, t in plan.agents.items())
        + f"phase 3: dvc repro {' '.join(plan.final) or '(the whole pipeline)'}"
        + (
            f" --pull; agents on work pool {pool!r}"
            if pool
            else f"; phase 2 {jobs} at a time, an agent's stages of one benchmark each"
        ),
        file=sys.stderr,
    )
    # prefect's own annotation rejects its thread pool runner (TaskRunner is invariant in its future type)
    flow_fn = agents_flow.with_options(task_runner=ThreadPoolTaskRunner(max_workers=jobs))  # type: ignore[arg-type]
    session = session_env()[SESSION_ENV]  # the caller's, when set (one cap over several commands), else a fresh one

    def go() -> int:
        from prefect import tags

        from flows.kit.monitor import identity_tags

        with tags(*identity_tags(), *(f"agent:{a}" for a in plan.agents)):
            codes = flow_fn(plan, pool, jobs)
        failed = [name for name, code in codes.items() if code]
        if failed:
            print(f"agents: failed: {', '.join(failed)} (later phases not run)", file=sys.stderr)
        return 1 if failed else 0

    from flows import children
    from flows.pipeline import served

    with (
        children.interruptible(),
        _environment(SESSION_ENV, session),
        served(dict(os.environ), announce=True) as env,
        _environment("PREFECT_API_URL", env["PREFECT_API_URL"]),
    ):
        return go()


@contextmanager
def _environment(name: str, value: str) -> Iterator[None]:
    """`name` set to `value` in this process (and so in every command it starts) for the block, then as before."""
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before


# ---------------------------------------------------------------------------------------------- the work pool
@contextmanager
def _one_at_a_time(root: Path = Path()) -> Iterator[None]:
    """An exclusive lock on this clone (`.dvc/tmp/jurisflow-agents.lock`): two agents' runs on one worker must not
    restore the same shared stage at once (DVC's read/write locks would fail the second instead of waiting)."""
    import fcntl

    path = root / ".dvc" / "tmp" / "jurisflow-agents.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _check(label: str, args: list[str]) -> None:
    code = _stream(label, args, _env())
    if code:
        raise RuntimeError(f"dvc {' '.join(args[2:])} exited {code}")


@flow(name=FLOW_NAME)
def agent_stages_run(
    agent: str, targets: list[str], shared: list[str], expected: dict[str, str], session: str = ""
) -> str:
    """What a worker runs for one agent, in its own clone (`JURISFLOW_HOME`, set by `jurisflow agents worker`):
    refuse a clone whose params.yaml, dvc.yaml or commit differ from the coordinator's; bring the shared stages up
    to date from the coordinator's run cache (one agent at a time); `dvc repro --pull` the agent's stages; `dvc push
    --run-cache` them. `session`: the coordinator's run session, so that the agents this clone runs share
    `llm.budget_usd` (the ledger is a file beside this clone's response cache: the cap holds per machine)."""
    here = fingerprint()
    differ = [k for k in expected if here.get(k) != expected[k]]
    if differ:
        raise RuntimeError(
            f"this clone ({Path.cwd()}) differs from the coordinator's in {', '.join(differ)}: "
            "check out the same commit (and params.yaml) before starting the worker"
        )
    if session:  # this flow run is a process of its own (a process work pool): its commands inherit it
        os.environ[SESSION_ENV] = session
    if shared:
        with _one_at_a_time():  # the first agent on this clone restores them, the others find them up to date
            if stale(shared):
                _check(agent, repro_args(shared, pull=True))
    _check(agent, repro_args(targets, pull=True, single=True))
    _check(agent, push_args(targets))
    return f"{agent}: {len(targets)} stages reproduced and pushed"


def deploy(pool: str = POOL) -> str:
    """Create the process work pool (if missing) and the `agent-stages/<pool>` deployment: its flow runs in the
    worker's clone, named by the worker's `JURISFLOW_HOME`."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import WorkPoolCreate
    from prefect.exceptions import ObjectAlreadyExists
    from prefect.utilities.asyncutils import run_coro_as_sync

    async def create() -> str:
        async with get_client() as client:
            with contextlib.suppress(ObjectAlreadyExists):  # made by an earlier deploy
                await client.create_work_pool(WorkPoolCreate(name=pool, type="process"))
            flow_id = await client.create_flow_from_name(FLOW_NAME)
            deployment_id = await client.create_deployment(
                flow_id=flow_id,
                name=pool,
                entrypoint=ENTRYPOINT,
                work_pool_name=pool,
                pull_steps=[
                    {"prefect.deployments.steps.set_working_directory": {"directory": "{{ $JURISFLOW_HOME }}"}}
                ],
                parameter_openapi_schema=parameter_schema(agent_stages_run.fn).model_dump(),
                enforce_parameter_schema=False,
            )
            return f"deployment {FLOW_NAME}/{pool} ({deployment_id}) on process work pool {pool!r}"

    return run_coro_as_sync(create())


def worker(pool: str = POOL, limit: int = 1) -> int:
    """`prefect worker start` for the pool in this clone (`JURISFLOW_HOME` = here): it runs up to `limit` agents."""
    env = {**_env(), "JURISFLOW_HOME": str(Path.cwd().resolve())}
    args = [_bin("prefect"), "worker", "start", "--pool", pool, "--type", "process", "--limit", str(limit)]
    return subprocess.run(args, env=env).returncode

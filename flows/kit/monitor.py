"""What the Prefect UI shows of a stage: run names and tags, progress and summary logs, per-group task runs, and
artifacts with the headline results. Nothing here changes what a stage computes or writes to disk.

- `describe` names a flow run `<stage>@<agent>[-<setting>]` and tags it (project, commit, run session, benchmark,
  stage, agent (a report: every agent it reports on), model, judge, `scripted`/`real`); `flows.kit.stage.run_stage`
  applies them, so every stage is named in one place.
- `mark_process` records a stage's process on its flow run; `mark_crashed` marks Crashed the runs of this project
  still Running whose process is gone (run at every stage's start and by `jurisflow ui`).
- `run_logger` is the run's logger at INFO (sent to the Prefect API, shown in the run's Logs tab), or None
  outside a run; `flows.kit.progress` reports through it.
- `gather_groups` runs the groups of one stage (LawBench tasks, J1 environments, UCL tasks ...) as one task run
  each, concurrently in the caller's event loop, so the model door's bounds and the engine's concurrency bound
  stay shared, and returns the results in the input order; `follow_groups` follows one piece of work with a task
  run per group. Each group's task run is Pending while its calls wait and Running from its first call
  (`GroupRuns`).
- `publish_table` / `publish_markdown` attach a result table or a report to the run (Artifacts tab).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import re
import socket
import subprocess
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Hashable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from flows.kit.config import Params
    from steps.llm import ModelConfig
    from steps.stages import Stage

T = TypeVar("T")
R = TypeVar("R")


def benchmark_of(stage: str) -> str:
    """The benchmark tag of a stage: the benchmark that declares it, or "shared" (steps/pipeline.py)."""
    from steps.pipeline import owner

    return owner(stage) or "shared"


def _declared(stage: str) -> Stage | None:
    """The stage's declaration (None for a flow run that is no declared stage, e.g. a test's)."""
    from steps.pipeline import stage as declared_stage

    try:
        return declared_stage(stage)
    except KeyError:
        return None


PROJECT_ENV = "JURISFLOW_PROJECT"


def project_name() -> str:
    """The project's name in the Prefect UI: JURISFLOW_PROJECT, else the name of the checkout's folder (where DVC runs
    every stage)."""
    return os.environ.get(PROJECT_ENV) or Path.cwd().resolve().name


@cache
def git_commit() -> str | None:
    """The checkout's commit, abbreviated as git does (None outside a git checkout)."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def run_session() -> str:
    """The run session this process belongs to (12 hex digits): the one `make run`, `jurisflow eval` and `jurisflow
    agents run` give their stages (JURISFLOW_RUN_SESSION), else the `dvc` process that started this one (every stage
    of one `dvc repro`), else this process alone."""
    from steps.llm.ledger import SESSION_ENV

    session = os.environ.get(SESSION_ENV)
    if session:
        return session[:12]
    import psutil

    me = psutil.Process()
    owner = next((p for p in _parents(me) if _is_dvc(p)), me)
    return hashlib.sha256(f"{owner.pid}-{owner.create_time()}".encode()).hexdigest()[:12]


def _parents(process: Any) -> list[Any]:
    import psutil

    try:
        return list(process.parents())
    except psutil.Error:
        return []


def _is_dvc(process: Any) -> bool:
    """Whether `process` is a `dvc` command (`dvc …`, `python …/dvc …`, `python -m dvc …`)."""
    import psutil

    try:
        argv = process.cmdline()
    except psutil.Error:
        return False
    return any(Path(arg).name == "dvc" for arg in argv[:3]) or process.name() == "dvc"


def identity_tags() -> list[str]:
    """The tags of every flow run of this project: `project:<name>`, `commit:<hash>` (in a git checkout) and
    `session:<id>` (one per `make run`, `jurisflow eval`, `jurisflow agents run` or `dvc repro`)."""
    commit = git_commit()
    return [f"project:{project_name()}", *([f"commit:{commit}"] if commit else []), f"session:{run_session()}"]


def reads_every_agent(declared: Stage) -> bool:
    """A report stage: not per agent, it reads every agent's runs (it depends on `agents`, or is a `*_report`)."""
    return (
        not declared.per_agent
        and declared.seat is None
        and ("agents" in declared.params or declared.name.endswith("_report"))
    )


def describe(
    stage: str, params: Params | None, agent_name: str | None = None, setting: str | None = None
) -> tuple[str, list[str]]:
    """The flow run's name and tags: the project, commit and run session (`identity_tags`), the stage's benchmark,
    its agent (or the model its declaration seats there; a report stage: every agent it reports on), the agent's
    model, and the models of the shared roles it calls (its declaration's `roles`)."""
    from steps.registry import resolve

    declared = _declared(stage)
    roles = declared.roles if declared is not None else ()
    agent: ModelConfig | None = None
    if declared is not None and declared.seat is not None and params is not None:
        agent = resolve(declared.seat)(params)
    elif agent_name is not None and params is not None and agent_name in params.agents:
        agent = params.agent(agent_name)
    who = agent.name if agent is not None else agent_name
    name = stage + (f"@{who}" if who else "") + (f"-{setting}" if setting else "")
    benchmark = benchmark_of(stage)
    tags = [*identity_tags(), f"benchmark:{benchmark}", f"stage:{stage}"]
    if who:
        tags.append(f"agent:{who}")
    elif declared is not None and params is not None and reads_every_agent(declared):
        runs = params.derived_runs()
        reported = runs.get(benchmark, list(params.agents)) if benchmark != "shared" else list(params.agents)
        tags += [f"agent:{name}" for name in reported]
    if setting:
        tags.append(f"setting:{setting}")
    if agent is not None:
        tags += [f"model:{agent.model}", "scripted" if agent.is_scripted else "real"]
    from steps.params import BENCHMARKS

    for role in ("environment", "judge"):
        if params is not None and role in roles:
            found = params.role_model(benchmark, role) if benchmark in BENCHMARKS else params.shared_roles()[role]
            tags.append(f"{role}:{found.model}")
    return name, tags


def process_id() -> str:
    """This process as Prefect's workers record a flow run's process (`infrastructure_pid`): `host:pid`."""
    return f"{socket.gethostname()}:{os.getpid()}"


def mark_process() -> None:
    """Record this process on the current flow run (`infrastructure_pid`), so that a later start can tell that the
    run's process is gone (`mark_crashed`). Nothing outside a flow run or without an API."""
    from prefect.client.orchestration import SyncPrefectClient
    from prefect.context import FlowRunContext

    context = FlowRunContext.get()
    if context is None or context.flow_run is None or not isinstance(context.client, SyncPrefectClient):
        return
    try:
        context.client.update_flow_run(context.flow_run.id, infrastructure_pid=process_id())
    except Exception as err:  # the monitor never fails a stage
        logging.getLogger(__name__).warning(f"could not record the stage's process on its flow run: {err}")


def _gone(infrastructure_pid: str | None, started: Any) -> bool:
    """Whether the process a flow run recorded (`host:pid`) is gone: it ran on this host and no such process runs,
    or the pid now belongs to a process started after the run (a reused pid). A run of another host is not judged."""
    import psutil

    host, _, pid = (infrastructure_pid or "").rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        process = psutil.Process(int(pid))
        if process.status() == psutil.STATUS_ZOMBIE:
            return True
        return started is not None and process.create_time() > started.timestamp() + 1
    except psutil.NoSuchProcess:
        return True
    except psutil.Error:
        return False


def mark_crashed(project: str | None = None) -> list[str]:
    """Mark Crashed every flow run of this project (tag `project:<name>`) that is still Running though its process
    (`mark_process`) is gone: a stage killed with SIGKILL, or whose terminal closed, never reports its end. Returns the
    names of the runs marked. Uses the API Prefect's settings name (PREFECT_API_URL)."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        FlowRunFilter,
        FlowRunFilterState,
        FlowRunFilterStateType,
        FlowRunFilterTags,
    )
    from prefect.client.schemas.objects import StateType
    from prefect.states import Crashed

    running = FlowRunFilter(
        state=FlowRunFilterState(type=FlowRunFilterStateType(any_=[StateType.RUNNING])),
        tags=FlowRunFilterTags(all_=[f"project:{project or project_name()}"]),
    )
    marked = []
    with get_client(sync_client=True) as client:
        for run in client.read_flow_runs(flow_run_filter=running, limit=200):
            if not _gone(run.infrastructure_pid, run.start_time):
                continue
            message = f"its process ({run.infrastructure_pid}) ended without reporting: killed, or its terminal closed"
            client.set_flow_run_state(run.id, Crashed(message=message), force=True)
            marked.append(run.name)
    return marked


def run_logger() -> logging.Logger | logging.LoggerAdapter | None:
    """The current flow or task run's logger, or None outside a run (a step called on its own, a test)."""
    import sys

    if "prefect" not in sys.modules:
        return None
    from prefect.context import FlowRunContext, TaskRunContext
    from prefect.logging import get_run_logger

    if FlowRunContext.get() is None and TaskRunContext.get() is None:
        return None
    return get_run_logger()


def log(message: str) -> None:
    """One INFO line in the current run's logs (nothing outside a run)."""
    logger = run_logger()
    if logger is not None:
        logger.info(message)


def _task_name(label: str) -> str:
    return re.sub(r"[{}]", "", label)  # task_run_name is a format string: no braces


def shared_client() -> AbstractAsyncContextManager[Any]:
    """One Prefect API client for the task runs started inside it in this event loop (they inherit it through their
    context), instead of one per task run: each client builds a TLS context from the CA bundle (30 ms of CPU, whether
    or not the API is https), about 0.6 s of a LawBench stage's 3.7 s with its 20 groups."""
    from prefect.context import AsyncClientContext

    return AsyncClientContext.get_or_create()


def in_flow_run() -> bool:
    """Whether this runs inside a Prefect flow run; without Prefect loaded it cannot (nothing is imported to ask)."""
    import sys

    if "prefect" not in sys.modules:
        return False
    from prefect.context import FlowRunContext

    return FlowRunContext.get() is not None


async def gather_groups(
    items: Sequence[T],
    group_of: Callable[[T], Hashable],
    run: Callable[[list[T]], Awaitable[list[R]]],
    label: Callable[[Hashable], str],
) -> list[R]:
    """Run `run` on each group of `items` (in first-seen order) as one Prefect task run named `label(group)`, all
    concurrently in this event loop; `run` returns one result per item, and the results come back in the order of
    `items`. Outside a flow run the groups run the same way without task runs."""
    from flows.kit import progress

    groups: dict[Hashable, list[int]] = {}
    for i, item in enumerate(items):
        groups.setdefault(group_of(item), []).append(i)
    # each group's items and calls also count for its row of the stage's progress (its work runs in its context)
    tallies = progress.open_groups({label(g): len(p) for g, p in groups.items()})

    def in_group(g: Hashable, work: Coroutine[Any, Any, list[R]]) -> asyncio.Task[list[R]]:
        return asyncio.create_task(work, context=progress.in_group(tallies[label(g)]))

    async def one(positions: list[int]) -> list[R]:
        results = await run([items[i] for i in positions])
        if len(results) != len(positions):
            raise RuntimeError(f"a group returned {len(results)} results for {len(positions)} items")
        return results

    # every group ends before the first error is raised: a group still running when the flow ends would be cut off
    # (its task run would stay Running, and the answers on their way would be lost)
    if not in_flow_run():
        done = await asyncio.gather(*(in_group(g, one(p)) for g, p in groups.items()), return_exceptions=True)
    else:
        async with shared_client():
            runs = await GroupRuns.open({label(g): tallies[label(g)] for g in groups})

            async def tracked(g: Hashable, positions: list[int]) -> list[R]:
                try:
                    results = await one(positions)
                except Exception as exc:
                    await runs.end(label(g), exc)
                    raise
                await runs.end(label(g))
                return results

            done = await asyncio.gather(
                *(in_group(g, tracked(g, p)) for g, p in groups.items()), return_exceptions=True
            )
    out: list[Any] = [None] * len(items)
    for result in done:
        if isinstance(result, BaseException):
            raise result
    for positions, results in zip(groups.values(), done, strict=True):
        assert not isinstance(results, BaseException)  # raised above
        for i, r in zip(positions, results, strict=True):
            out[i] = r
    return out


def _key(text: str) -> str:
    """An artifact key: lowercase letters, digits and dashes only."""
    return re.sub(r"-+", "-", re.sub(r"[^a-z0-9]+", "-", text.lower())).strip("-")


def publish_table(key: str, rows: list[dict[str, Any]], description: str) -> None:
    """A table artifact on the current run (nothing outside a run); rows with a `task` are in the natural order of
    their tasks (`2-2` before `2-10`; the order they came in within a task)."""
    if run_logger() is None:
        return
    from prefect.artifacts import create_table_artifact

    from steps.tables import natural_key

    if rows and "task" in rows[0]:
        rows = sorted(rows, key=lambda row: natural_key(row.get("task")))

    create_table_artifact(rows, key=_key(key), description=description)


def publish_markdown(key: str, markdown: str, description: str) -> None:
    """A Markdown artifact on the current run (nothing outside a run)."""
    if run_logger() is None:
        return
    from prefect.artifacts import create_markdown_artifact

    create_markdown_artifact(markdown, key=_key(key), description=description)


def publish_report(path: Any, description: str) -> None:
    """A written Markdown report (ours beside the paper's numbers) as a Markdown artifact on the current run."""
    from pathlib import Path

    path = Path(path)
    publish_markdown(f"report-{path.stem}", path.read_text(encoding="utf-8"), description)


async def follow_groups(
    sizes: dict[str, int],
    work: Callable[[Callable[[str], None]], Awaitable[R]],
    members: Mapping[str, str] | None = None,
) -> R:
    """Run `work` once, as it is (its concurrency, journal and order untouched), with one Prefect task run per
    group that follows it: `work` calls the given `done(group)` once per finished item, and the group's task run
    ends when its `sizes[group]` items are done (or fails with `work`'s error). `members` (instance id → group)
    tells a call's group from its metadata, so that a group's task run turns Running at its first call (without
    it, when its first item is done). Returns `work`'s result."""
    from flows.kit import progress

    loop = asyncio.get_running_loop()
    finished = {g: loop.create_future() for g, n in sizes.items() if n}
    counts = dict.fromkeys(sizes, 0)
    tallies = progress.open_groups(sizes)  # the groups' rows of the stage's progress

    def done(group: str) -> None:
        counts[group] += 1
        progress.group_done(tallies[group])
        tallies[group].begin()
        if counts[group] == sizes[group] and not finished[group].done():
            finished[group].set_result(None)

    owned = {i: tallies[g] for i, g in (members or {}).items() if g in tallies}
    context = progress.in_members(owned)
    if not in_flow_run():
        return await loop.create_task(_awaited(work(done)), context=context)

    async with shared_client():
        runs = await GroupRuns.open({g: tallies[g] for g in finished})  # before the work makes its first call
        running = loop.create_task(_awaited(work(done)), context=context)

        async def follow(group: str) -> int:
            await asyncio.wait({finished[group], running}, return_when=asyncio.FIRST_COMPLETED)
            if not finished[group].done():
                error = running.exception() if not running.cancelled() else None
                failure = error or RuntimeError(f"{group}: the run ended after {counts[group]} of {sizes[group]} items")
                await runs.end(group, failure)
                raise failure
            await runs.end(group, note=f"{group}: {sizes[group]:,} done")
            return sizes[group]

        results = await asyncio.gather(running, *(follow(g) for g in finished), return_exceptions=True)
    for r in results:
        if isinstance(r, BaseException):
            raise r
    return running.result()


async def _awaited(work: Awaitable[R]) -> R:
    """`work` as a coroutine (what `create_task` takes)."""
    return await work


class GroupRuns:
    """A stage's groups as Prefect task runs, kept through Prefect's client API (`create_task_run`,
    `set_task_run_state`, `create_logs`), so that the UI shows queued work as queued: each task run is created Pending
    when the stage starts, turns Running when its group's first model call starts (the door tells the progress
    tallies, flows/kit/progress.py: `began`; a group that makes no call, when it ends), and ends Completed, or Failed
    with its error. A task run of Prefect's task engine would be Running from the stage's start, however long its
    group's calls wait for the door's slots. Bookkeeping only: an API error is logged once and never fails the
    stage."""

    def __init__(self, client: Any, flow_run_id: Any, ids: dict[str, Any]):
        self.client, self.flow_run_id, self.ids = client, flow_run_id, ids
        self.running: dict[str, asyncio.Task[None]] = {}
        self.warned = False

    @classmethod
    async def open(cls, tallies: Mapping[str, Any]) -> GroupRuns:
        """A Pending task run per group (`label → its progress tally`), named after it; each turns Running when its
        tally begins."""
        from prefect import get_client
        from prefect.context import FlowRunContext
        from prefect.states import Pending

        context = FlowRunContext.get()
        assert context is not None and context.flow_run is not None  # only called in a flow run
        client = get_client()  # the shared client of `shared_client`
        suffix = uuid.uuid4().hex[:8]  # a stage may open several loops of groups: each task run is new
        runs = cls(client, context.flow_run.id, {})
        try:
            created = await asyncio.gather(
                *(
                    client.create_task_run(
                        _group_task(),
                        context.flow_run.id,
                        dynamic_key=f"{label}-{suffix}",
                        name=_task_name(label),
                        state=Pending(message="queued: none of its model calls has started"),
                    )
                    for label in tallies
                )
            )
        except Exception as exc:  # the UI's bookkeeping never fails a stage
            runs.warn(exc)
            return runs
        runs.ids = {label: run.id for label, run in zip(tallies, created, strict=True)}
        loop = asyncio.get_running_loop()
        for label, tally in tallies.items():
            tally.on_begin.append(lambda label=label: loop.call_soon_threadsafe(runs.start, label))
            if tally.begun:
                runs.start(label)
        return runs

    def start(self, label: str) -> None:
        """Set the group's task run Running (once)."""
        from prefect.states import Running

        if label in self.ids and label not in self.running:
            self.running[label] = asyncio.ensure_future(self._set(label, Running()))

    async def end(self, label: str, error: BaseException | None = None, note: str = "") -> None:
        """Set the group's task run Completed (with `note` in its logs) or Failed with `error`; Running first."""
        from prefect.states import Completed, Failed

        if label not in self.ids:
            return
        self.start(label)
        await self.running[label]
        if note:
            await self._log(label, note)
        state: Any = (
            Completed(message=note or None) if error is None else Failed(message=f"{type(error).__name__}: {error}")
        )
        await self._set(label, state)

    async def _set(self, label: str, state: Any) -> None:
        try:
            await self.client.set_task_run_state(self.ids[label], state)
        except Exception as exc:
            self.warn(exc)

    async def _log(self, label: str, message: str) -> None:
        from datetime import UTC, datetime

        entry = {  # a LogCreate as JSON
            "name": "jurisflow.groups",
            "level": logging.INFO,
            "message": message,
            "timestamp": datetime.now(UTC).isoformat(),
            "flow_run_id": str(self.flow_run_id),
            "task_run_id": str(self.ids[label]),
        }
        try:
            await self.client.create_logs([entry])
        except Exception as exc:
            self.warn(exc)

    def warn(self, exc: Exception) -> None:
        if not self.warned:
            self.warned = True
            logging.getLogger(__name__).warning("the Prefect UI's group task runs are not kept up: %s", exc)


@cache
def _group_task() -> Any:
    """The Prefect task every group's task run is a run of (its key and policy; the task itself never runs)."""
    from prefect import task
    from prefect.cache_policies import NO_CACHE

    def group() -> None:
        """A group of a stage's items (a LawBench task, a J1 environment …)."""

    return task(name="group", cache_policy=NO_CACHE)(group)

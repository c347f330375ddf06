"""Running a stage flow from the command line: its progress (flows/kit/progress.py), one summary line on success or
one error line on failure, then the closing line of its progress (items, calls, tokens, seconds).

`run_stage` names and tags the flow run (flows.kit.monitor.describe); `stage_flow` declares a stage's flow and sends its
summary line to the run's logs."""

from __future__ import annotations

import functools
import inspect
import logging
import os
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from rich.console import Console

from flows.kit import progress
from flows.kit.server_guard import install as install_server_guard
from steps.llm.cache import CacheError
from steps.schemas import TableError
from steps.sources.errors import SourceError
from steps.tables import OutputError

if TYPE_CHECKING:
    from prefect import Flow, State


class CallsFailed(Exception):
    """Model calls of a stage still failed after retries, beyond `llm.max_failed_fraction`.

    Raised by `flows.kit.models.check_calls` once the stage's outputs are written: the stage exits 1, so DVC does
    not lock it and the next `dvc repro` runs it again (finished calls come from the response cache).
    """

    def __init__(self, message: str, by_kind: dict[str, int], n_calls: int):
        super().__init__(message)
        self.by_kind, self.n_calls = by_kind, n_calls


# Errors that describe bad input or configuration, or failed calls; they end a stage with their one-line message.
EXPECTED_ERRORS: tuple[type[Exception], ...] = (
    SourceError,
    TableError,
    FileNotFoundError,
    ValueError,
    OutputError,
    CacheError,
    CallsFailed,
)

console = Console(stderr=True)


class _ShortExpectedErrors(logging.Filter):
    """Keep an expected error to the one line run_stage prints: Prefect's records about it (the task's and the
    flow's "failed with"/"Encountered exception" with the exception attached) are dropped, and so is every run's
    "Finished in state Failed(...)", which only restates a failure. An unexpected error keeps its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], EXPECTED_ERRORS):
            return False
        # a restatement of the failure the exception record (kept or dropped above) and run_stage report
        # (at ERROR, and at INFO now that run logs reach the API at INFO: the run's state and the stage's own
        # failure line say it there)
        return not record.getMessage().startswith("Finished in state Failed")


def _shorten_prefect_tracebacks() -> None:
    for name in ("", "prefect", "prefect.flow_runs", "prefect.task_runs"):
        for handler in logging.getLogger(name).handlers:
            if not any(isinstance(f, _ShortExpectedErrors) for f in handler.filters):
                handler.addFilter(_ShortExpectedErrors())


class _NotOnTheTerminal(logging.Filter):
    """Records meant for the run's logs in the Prefect API only (the terminal has run_stage's own line)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(record, "api_only", False)


def _send_info_to_the_api() -> None:
    """Run logs at INFO reach the Prefect API (the run's Logs tab) while the terminal keeps Prefect's configured
    level (WARNING in prefect.toml; PREFECT_LOGGING_LEVEL=INFO shows them there too)."""
    from prefect.logging.handlers import PrefectConsoleHandler
    from prefect.settings import get_current_settings

    level = logging.getLevelName(str(get_current_settings().logging.level).upper())
    level = level if isinstance(level, int) else logging.WARNING
    for name in ("prefect.flow_runs", "prefect.task_runs"):
        logger = logging.getLogger(name)
        if logger.getEffectiveLevel() > logging.INFO:
            logger.setLevel(logging.INFO)
    for name in ("", "prefect"):
        for handler in logging.getLogger(name).handlers:
            if isinstance(handler, PrefectConsoleHandler):
                handler.setLevel(max(handler.level, level))
                if not any(isinstance(f, _NotOnTheTerminal) for f in handler.filters):
                    handler.addFilter(_NotOnTheTerminal())


def _check_params(flow_fn: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    """Load the flow's parameters file before anything starts (no Prefect run, no model call on bad params)."""
    from flows.kit.config import load_params

    parameters = inspect.signature(getattr(flow_fn, "fn", flow_fn)).parameters
    if "params_file" in parameters:
        return load_params(kwargs.get("params_file", parameters["params_file"].default))
    return None


def stage_flow(fn: Callable[..., str]) -> Any:
    """`@flow` for a stage, named after its function (which is named after its stage and module: `flows/<stage>.py`
    defines `<stage>()`): its one-line summary (or its one-line failure) also goes to the run's logs."""
    from prefect import flow

    name = fn.__name__

    @functools.wraps(fn)
    def logged(*args: Any, **kwargs: Any) -> str:
        from flows.kit.monitor import mark_process, run_logger

        mark_process()  # a later start can tell that this run's process is gone (flows/kit/monitor.py)
        logger = run_logger()
        try:
            summary = fn(*args, **kwargs)
        except EXPECTED_ERRORS as err:
            if logger is not None:
                logger.error(f"{name} failed: {err}", extra={"api_only": True})
            raise
        if logger is not None:
            logger.info(f"{name}: {summary}")
        return summary

    # Prefect validates parameters from the annotations, which must resolve in the flow's module, not here
    logged.__annotations__ = inspect.get_annotations(fn, eval_str=True)
    logged.__signature__ = inspect.signature(fn, eval_str=True)  # type: ignore[attr-defined]  # as in flows/cli.py
    return flow(name=name)(logged)


def run_stage(name: str, flow_fn: Flow[..., Any], **kwargs: Any) -> int:
    """Validate the parameters, run a flow and turn its final state into an exit code (0 ok, 1 failed). A stage
    DVC runs holds its stage lock meanwhile (flows/kit/stage_lock.py): one process per stage at a time."""
    from flows.kit.stage_lock import StageRunning, stage_lock

    try:
        with stage_lock():
            return _run_stage(name, flow_fn, **kwargs)
    except StageRunning as err:
        console.print(f"[bold red]{name} failed[/]: {err}", soft_wrap=True)
        return 1


def _run_stage(name: str, flow_fn: Flow[..., Any], **kwargs: Any) -> int:
    from prefect import tags

    from flows.kit.config import ParamsError
    from flows.kit.monitor import describe

    try:
        params = _check_params(flow_fn, kwargs)
    except ParamsError as err:
        console.print(f"[bold red]{name} failed[/]: {err}", soft_wrap=True)
        return 1
    run_name, run_tags = describe(name, params, kwargs.get("agent_name"), kwargs.get("setting"))
    if not orchestrated():
        return _run_plain(name, flow_fn, run_name, kwargs)
    _shorten_prefect_tracebacks()
    _send_info_to_the_api()
    install_server_guard()  # a killed stage leaves no temporary Prefect server behind
    _mark_crashed()
    with progress.stage(run_name) as meter:
        try:
            with tags(*run_tags):
                # cast: for a Flow[..., Any] prefect's overloads of __call__ pick the one for NoReturn flows (None)
                state = cast("State[Any]", flow_fn.with_options(flow_run_name=run_name)(return_state=True, **kwargs))
        except BaseException:
            console.print(meter.summary(ok=False), soft_wrap=True, markup=False, highlight=False)
            raise
    code = _report(name, state)
    console.print(meter.summary(ok=code == 0), soft_wrap=True, markup=False, highlight=False)  # the closing line
    return code


PREFECT_SWITCH = "JURISFLOW_PREFECT"


def orchestrated(env: Mapping[str, str] | None = None) -> bool:
    """Whether a stage runs as a Prefect flow (`JURISFLOW_PREFECT`, default `on`). `off`: its body is called as a
    plain function, with the same lines on the terminal and exit code, and nothing sent to any Prefect server (no
    run in the UI, no server started): for quick checks and for the test suite's stage tests. `env`: the environment
    of the processes about to start (default: this one's)."""
    value = (os.environ if env is None else env).get(PREFECT_SWITCH, "on")
    return value.strip().lower() not in {"off", "0", "false", "no"}


def _run_plain(name: str, flow_fn: Flow[..., Any], run_name: str, kwargs: dict[str, Any]) -> int:
    """The stage's body called as a plain function (`orchestrated()` off), ending as `_report` ends a flow run."""
    with progress.stage(run_name) as meter:
        try:
            summary = flow_fn.fn(**kwargs)
        except EXPECTED_ERRORS as err:
            console.print(f"[bold red]{name} failed[/]: {err}", soft_wrap=True)
            code = 1
        except Exception as err:
            console.print_exception()
            console.print(f"[bold red]{name} failed[/] with an unexpected error: {type(err).__name__}: {err}")
            code = 1
        except BaseException:
            console.print(meter.summary(ok=False), soft_wrap=True, markup=False, highlight=False)
            raise
        else:
            console.print(f"[bold green]{name}[/]: {summary}", soft_wrap=True)
            code = 0
    console.print(meter.summary(ok=code == 0), soft_wrap=True, markup=False, highlight=False)  # the closing line
    return code


def _mark_crashed() -> None:
    """Mark Crashed this project's runs left Running by a process that is gone (one line names them); a Prefect API
    that cannot be asked is the flow's to report, not this check's."""
    from flows.kit.monitor import mark_crashed

    try:
        marked = mark_crashed()
    except Exception as err:
        console.print(f"[dim]could not check for crashed Prefect runs: {err}[/]", soft_wrap=True)
        return
    if marked:
        console.print(f"[yellow]marked Crashed[/] (their process is gone): {', '.join(marked)}", soft_wrap=True)


def _report(name: str, state: State[Any]) -> int:
    """Print the stage's own summary line (or its one failure line) and return the exit code."""
    if state.is_completed():
        summary = state.result()
        console.print(f"[bold green]{name}[/]: {summary}", soft_wrap=True)
        return 0
    error = state.result(raise_on_failure=False)
    if isinstance(error, BaseException) and not isinstance(error, EXPECTED_ERRORS):
        console.print_exception() if sys.exc_info()[0] else None
        console.print(f"[bold red]{name} failed[/] with an unexpected error: {type(error).__name__}: {error}")
        return 1
    message = str(error) if isinstance(error, BaseException) else (state.message or "failed")
    console.print(f"[bold red]{name} failed[/]: {message}", soft_wrap=True)
    return 1


def run_command(name: str, fn: Callable[..., str], **kwargs: Any) -> int:
    """Run a command that is not a Prefect flow (no server, no run records; e.g. `models check`): its summary
    line and 0, or its one-line error and 1, as `run_stage` prints them."""
    try:
        summary = fn(**kwargs)
    except EXPECTED_ERRORS as err:
        console.print(f"[bold red]{name} failed[/]: {err}", soft_wrap=True)
        return 1
    console.print(f"[bold green]{name}[/]: {summary}", soft_wrap=True)
    return 0

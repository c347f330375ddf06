"""The benchmarks' own commands (`jurisflow <benchmark> <command>`, declared in their registrations as `Command`s,
steps/registry.py), as typer commands and, where a command says `flow`, as Prefect flows.

A command's function takes a `StageContext` (here the flow kit's, on params.yaml and the project's paths) and its
options, and returns the lines to print; it names no flow and imports no Prefect.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

from steps.registry import Command, resolve


def _options(function: Callable[..., Any]) -> list[inspect.Parameter]:
    """The function's parameters after its context, with their annotations resolved (typer and Prefect read them)."""
    params = list(inspect.signature(function).parameters.values())[1:]  # the context's type need not resolve
    scope = function.__globals__
    return [p.replace(annotation=eval(p.annotation, scope) if isinstance(p.annotation, str) else p.annotation)
            for p in params]  # fmt: skip


def _context(params_file: Path) -> Any:
    from flows.kit.config import load_params
    from flows.kit.context import FlowContext
    from flows.kit.paths import PATHS

    return FlowContext(load_params(params_file), PATHS)


def command_flow(benchmark: str, command: Command) -> Any:
    """The Prefect flow of a command (named `<benchmark>_<command>`): its options and `params_file`; returns the
    command's lines joined."""
    from flows.kit.config import PARAMS_FILE
    from flows.kit.stage import stage_flow

    function = resolve(command.function)
    plain = [p.replace(annotation=typing.get_args(p.annotation)[0] if _annotated(p) else p.annotation)
             for p in _options(function)]  # fmt: skip
    extra = inspect.Parameter("params_file", inspect.Parameter.KEYWORD_ONLY, default=PARAMS_FILE, annotation=Path)

    def body(**kwargs: Any) -> str:
        params_file = kwargs.pop("params_file", PARAMS_FILE)
        return "\n".join(function(_context(params_file), **kwargs))

    signature = inspect.Signature([*(p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in plain), extra])
    body.__signature__ = signature  # type: ignore[attr-defined]
    body.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()} | {"return": str}
    body.__name__ = body.__qualname__ = f"{benchmark}_{command.name.replace('-', '_')}"
    body.__doc__ = function.__doc__
    return stage_flow(body)


def _annotated(parameter: inspect.Parameter) -> bool:
    return typing.get_origin(parameter.annotation) is typing.Annotated


def cli_command(benchmark: str, command: Command) -> Callable[..., None]:
    """The typer command of a command: runs it (as its flow when it says so), prints its lines; a bad input is one
    line and exit 1."""
    import typer

    function = resolve(command.function)

    def run(**kwargs: Any) -> None:
        from flows.kit.config import PARAMS_FILE
        from flows.kit.stage import EXPECTED_ERRORS, console, run_stage

        if command.flow:
            raise typer.Exit(run_stage(f"{benchmark} {command.name}", command_flow(benchmark, command), **kwargs))
        try:
            lines = function(_context(PARAMS_FILE), **kwargs)
        except EXPECTED_ERRORS as err:
            console.print(f"[bold red]{benchmark} {command.name} failed[/]: {err}", soft_wrap=True)
            raise typer.Exit(1) from None
        for line in lines:
            typer.echo(line)

    run.__signature__ = inspect.Signature(_options(function))  # type: ignore[attr-defined]
    run.__doc__ = function.__doc__
    run.__name__ = command.name.replace("-", "_")
    return run

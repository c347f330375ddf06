"""Every stage's Prefect flow, made from its declaration (steps/stages.py, steps/pipeline.py):

    python -m flows.run STAGE [AGENT] [SETTING]      (dvc.yaml's `cmd` of every stage)

The flow is named after the stage; it loads params.yaml (a bad file stops it before anything starts), gives the
stage's body a `FlowContext` (flows/kit/context.py) and returns the body's one-line summary. `run_stage` turns the
flow's end into the exit code DVC sees (0, or 1 with one line saying why).
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path
from typing import Any

from flows.kit.config import PARAMS_FILE, load_params
from flows.kit.paths import PATHS
from flows.kit.stage import run_stage, stage_flow
from steps.paths import Paths
from steps.pipeline import stage


@cache
def flow_of(name: str) -> Any:
    """The Prefect flow of stage `name`: `flow(agent_name=None, setting=None, params_file=..., paths=...)`."""
    declared = stage(name)

    def body(
        agent_name: str | None = None,
        setting: str | None = None,
        params_file: Path = PARAMS_FILE,
        paths: Paths = PATHS,
    ) -> str:
        from flows.kit.context import FlowContext

        if declared.per_agent and not agent_name:
            raise ValueError(f"stage {name} runs once per agent: name one")
        if declared.settings and setting not in declared.settings:
            raise ValueError(f"unknown setting '{setting}'; expected one of {', '.join(declared.settings)}")
        params = load_params(params_file)
        if agent_name is not None:
            params.agent(agent_name)  # an unknown agent is a clear error
        repeats = params.repeats(agent_name) if declared.per_agent and agent_name is not None else 1
        if repeats == 1:
            return declared.run_body(FlowContext(params, paths, agent_name, setting))
        assert agent_name is not None
        summaries = [  # each repeat its own run: its folder, seed and cache keys (docs/statistics.md#repeated-runs)
            declared.run_body(
                FlowContext(params.for_repeat(agent_name, i), paths.for_repeat(agent_name, i), agent_name, setting)
            )
            for i in range(repeats)
        ]
        warning = params.repeats_warning(agent_name)  # also in each repeat's run.json
        return (f"warning: {warning}; " if warning else "") + (
            f"{repeats} repeats: " + " | ".join(f"repeat {i}: {s}" for i, s in enumerate(summaries))
        )

    body.__name__ = body.__qualname__ = name
    body.__doc__ = declared.help
    return stage_flow(body)


def run(name: str, *args: str, **kwargs: Any) -> int:
    """Run stage `name` (its arguments in declaration order: agent, setting) and return its exit code."""
    declared = stage(name)
    names = ["agent_name" if a == "agent" else a for a in declared.arguments()]
    if len(args) != len(names):
        usage = " ".join(a.upper() for a in declared.arguments())
        raise SystemExit(f"usage: python -m flows.run {name} {usage}".rstrip())
    return run_stage(name, flow_of(name), **dict(zip(names, args, strict=True)), **kwargs)


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        raise SystemExit("usage: python -m flows.run STAGE [AGENT] [SETTING]")
    from flows.ui import use_running_server

    use_running_server()
    try:
        stage(args[0])
    except KeyError as err:
        raise SystemExit(str(err).strip("'\"")) from None
    sys.exit(run(args[0], *args[1:]))


if __name__ == "__main__":
    main()


def __getattr__(name: str) -> Any:
    """`from flows.run import ucl_judge`: the flow of a declared stage, by its name."""
    try:
        stage(name)
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    return flow_of(name)

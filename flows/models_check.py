"""`jurisflow models check`: send one probe to every configured model and report what answered.

Not a pipeline stage (it always calls the endpoints, bypassing the response cache): run it before
`dvc repro` to catch a wrong api_base, a missing API key or an unreachable server early. It is a plain
function, not a Prefect flow: a check starts no Prefect server and answers in seconds.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

from rich.markup import escape

from flows.context_check import check_before_run
from flows.kit.config import PARAMS_FILE, load_params
from flows.kit.models import model_session
from flows.terminal import console
from flows.terminal import table as fitting_table
from steps.llm import Completer, ModelConfig
from steps.llm.probe import PROBE_MESSAGES, PROBE_SCENARIO, ProbeResult, probe_result


def probe_all(door: Completer, models: list[tuple[str, ModelConfig]]) -> list[ProbeResult]:
    async def run() -> list[ProbeResult]:
        replies = await asyncio.gather(
            *(
                door.complete(
                    m, PROBE_MESSAGES, purpose="probe", metadata={"scenario": PROBE_SCENARIO, "role": role}, fresh=True
                )
                for role, m in models
            )
        )
        return [probe_result(role, m, r) for (role, m), r in zip(models, replies, strict=True)]

    return asyncio.run(run())


def models_check(params_file: Path = PARAMS_FILE, usage_out: Path | None = None, context: bool = True) -> str:
    """Probe every model; with `context`, then the context check of what the agents served by a server of their own
    (else the first agent, when a shared role is) would send (flows/context_check.py)."""
    params = load_params(params_file)
    models = [("agent", params.agent(n)) for n in params.agents]
    models += [("environment", params.environment_model()), ("judge", params.judge_model())]
    run_id = f"models-check-{uuid.uuid4().hex[:8]}"
    with model_session(params, run_id, usage=usage_out, models=[m for _, m in models]) as session:
        results = probe_all(session.door, models)
    table = fitting_table("role", "name", "model", "ok", "answer / failure", "latency s", "attempts")
    for r in results:
        ok = "yes" if r.ok else "[red]no[/]"
        table.add_row(r.role, r.name, escape(r.model), ok, escape(r.detail), f"{r.latency_s:.2f}", str(r.attempts))
    console(stderr=True).print(table)
    if context:
        served = [n for n in params.agents if params.agent(n).api_base]
        agents = served or list(params.agents)[:1]
        check_before_run(params, agents, None, lambda line: console(stderr=True).print(line, soft_wrap=True))
    failed = [r for r in results if not r.ok]
    if failed:
        raise ValueError(
            f"{len(failed)} of {len(results)} models did not answer: "
            + "; ".join(f"{r.name} ({r.detail})" for r in failed)
        )
    return f"{len(results)} models answered, 0 failed"

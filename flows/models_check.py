"""`jurisflow models check`: send one probe to every configured model and report what answered.

Not a pipeline stage (it always calls the endpoints, bypassing the response cache): run it before
`dvc repro` to catch a wrong api_base, a missing API key or an unreachable server early. It is a plain
function, not a Prefect flow: a check starts no Prefect server and answers in seconds.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape

from flows.kit.config import PARAMS_FILE, load_params
from flows.kit.models import open_door, write_usage
from flows.terminal import console
from flows.terminal import table as fitting_table
from steps.llm import ModelConfig
from steps.llm.probe import PROBE_MESSAGES, PROBE_SCENARIO, ProbeResult, probe_result

if TYPE_CHECKING:
    from steps.llm.door import ModelDoor


def probe_all(door: ModelDoor, models: list[tuple[str, ModelConfig]]) -> list[ProbeResult]:
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


def models_check(params_file: Path = PARAMS_FILE, usage_out: Path | None = None) -> str:
    params = load_params(params_file)
    models = [("agent", params.agent(n)) for n in params.agents]
    models += [("environment", params.environment_model()), ("judge", params.judge_model())]
    door = open_door(params, run_id=f"models-check-{uuid.uuid4().hex[:8]}", models=[m for _, m in models])
    try:
        results = probe_all(door, models)
        if usage_out is not None:
            write_usage(door, usage_out)
    finally:
        door.close()
    table = fitting_table("role", "name", "model", "ok", "answer / failure", "latency s", "attempts")
    for r in results:
        ok = "yes" if r.ok else "[red]no[/]"
        table.add_row(r.role, r.name, escape(r.model), ok, escape(r.detail), f"{r.latency_s:.2f}", str(r.attempts))
    console(stderr=True).print(table)
    failed = [r for r in results if not r.ok]
    if failed:
        raise ValueError(
            f"{len(failed)} of {len(results)} models did not answer: "
            + "; ".join(f"{r.name} ({r.detail})" for r in failed)
        )
    return f"{len(results)} models answered, 0 failed"

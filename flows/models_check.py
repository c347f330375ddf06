"""`jurisflow models check`: send one probe to every configured model and report what answered.

Not a pipeline stage (it always calls the endpoints, bypassing the response cache): run it before
`dvc repro` to catch a wrong api_base, a missing API key or an unreachable server early. It is a plain
function, not a Prefect flow: a check starts no Prefect server and answers in seconds.

Then, for every real model (not scripted) that answered, it times three fresh probes one after another
(flows/calibrate.py: a short and a long prompt with max_tokens 1, a question generating up to 64 tokens) and
records the server's prompt tokens over the estimate's count, prefill and generation tokens per second and the mean
latency in `.cache/calibration.json`, which `jurisflow estimate` reads for its token counts and wall time. A model
met twice (the agent's server playing the judge) is timed once. A model that plays a judge is also asked four judge
probes with the judge's decoding (flows/calibrate.py): the share of answers the judges' parsers cannot read is its
repair rate, with which the estimate counts the judge's repair rounds.

Each real model that answered is also asked for a reply constrained to a JSON schema (steps/llm/probe.py): whether
its endpoint honours `response_format` is printed and recorded beside the response cache, where models with
`structured_output: auto` read it (steps/llm/capabilities.py).

Last, the context check (flows/context_check.py; `--no-context` skips it): the servers' context sizes, and the items
whose longest request in the agents' stages would not fit (from the estimate, so it takes the estimate's time).
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
from steps.llm import Completer, ModelConfig, Reply
from steps.llm.capabilities import StructuredCheck, response_format, save_record
from steps.llm.probe import (
    PROBE_MESSAGES,
    PROBE_SCENARIO,
    STRUCTURED_SCHEMA,
    ProbeResult,
    probe_result,
    structured_verdict,
)
from steps.protocol import protocol_lines


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


def probe_structured(door: Completer, models: list[ModelConfig]) -> list[StructuredCheck]:
    """Ask each model for the structured-output probe's reply (steps/llm/probe.py), its setting aside: a check each."""
    fmt = response_format(STRUCTURED_SCHEMA, "ack")
    asked = [m.model_copy(update={"structured_output": "json_schema"}) for m in models]

    async def run() -> list[Reply]:
        meta = {"scenario": PROBE_SCENARIO}
        calls = (
            door.complete(m, PROBE_MESSAGES, purpose="probe", metadata=meta, fresh=True, response_format=fmt)
            for m in asked
        )
        return list(await asyncio.gather(*calls))

    return [structured_verdict(m, r) for m, r in zip(models, asyncio.run(run()), strict=True)]


def check_structured(params_file: Path, models: list[tuple[str, ModelConfig]], results: list[ProbeResult]) -> list[str]:
    """Probe every real model that answered for constrained output, record per endpoint whether it works beside the
    response cache (what `structured_output: auto` reads) and say so, a line each. Scripted models are never asked."""
    params = load_params(params_file)
    seen: dict[str, ModelConfig] = {}
    for (_, m), r in zip(models, results, strict=True):
        if r.ok and not m.is_scripted:
            seen.setdefault(f"{m.model} @ {m.endpoint()}", m)
    if not seen:
        return []
    run_id = f"models-structured-{uuid.uuid4().hex[:8]}"
    with model_session(params, run_id, models=list(seen.values())) as session:
        checks = probe_structured(session.door, list(seen.values()))
        where = save_record(Path(session.door.cache_dir), checks)
    lines = [f"structured output {c.model} @ {c.endpoint}: {c.detail}" for c in checks]
    return [*lines, f"structured output recorded in {where} (read by models with structured_output: auto)"]


def calibrate_all(
    params_file: Path, models: list[tuple[str, ModelConfig]], results: list[ProbeResult], out: Path
) -> list[str]:
    """Time the real models that answered (flows/calibrate.py) and save their records to `out`; a line each."""
    from flows.calibrate import first_base, measure, measure_judge, save, with_repair_rate
    from steps.llm.calibration import Calibration

    params = load_params(params_file)
    seen: dict[tuple[str, str], ModelConfig] = {}
    for (_, m), r in zip(models, results, strict=True):
        if r.ok and not m.is_scripted:
            seen.setdefault((m.model, first_base(m)), m)
    if not seen:
        return []
    judges: dict[tuple[str, str], ModelConfig] = {}  # a judge's own decoding for its probes
    for _, role, m in params.benchmark_roles():
        if role == "judge" and (m.model, first_base(m)) in seen:
            judges.setdefault((m.model, first_base(m)), m)
    lines, records = [], []
    run_id = f"models-calibrate-{uuid.uuid4().hex[:8]}"
    with model_session(params, run_id, models=list(seen.values())) as session:
        for (model, base), m in seen.items():
            found = measure(session.door, m)
            where = f"{model} @ {base or 'its provider'}"
            if isinstance(found, Calibration):
                judged = measure_judge(session.door, judges[model, base]) if (model, base) in judges else None
                if isinstance(judged, tuple):
                    found = with_repair_rate(found, judged)
                records.append(found)
                lines.append(
                    f"calibrated {where}: server/estimate prompt tokens {found.prompt_ratio:.2f}, prefill "
                    f"{found.prefill_tps:,.0f} tokens/s, generation {found.generation_tps:,.1f} tokens/s, mean "
                    f"latency {found.mean_latency_s:.2f} s"
                    + (
                        f"; as judge, {judged[0]} of {judged[1]} probe answers unreadable (repair rate "
                        f"{found.judge_repair_rate:.2f})"
                        if isinstance(judged, tuple)
                        else f"; judge probes: {judged}"
                        if judged
                        else ""
                    )
                )
            else:
                lines.append(f"not calibrated {where}: {found}")
    if records:
        save(records, out)
        lines.append(f"calibration saved to {out} (read by `jurisflow estimate`)")
    return lines


def models_check(
    params_file: Path = PARAMS_FILE,
    usage_out: Path | None = None,
    calibration_out: Path | None = None,
    context: bool = True,
) -> str:
    """Probe every model and time the real ones; with `context`, then the context check of what the agents served by a
    server of their own (else the first agent, when a shared role is) would send (flows/context_check.py)."""
    from flows.calibrate import CALIBRATION_FILE

    params = load_params(params_file)
    models = [("agent", params.agent(n)) for n in params.agents]
    roles: dict[str, tuple[list[str], ModelConfig]] = {}  # one probe per distinct model, named by its roles
    for benchmark, role, m in params.benchmark_roles():
        roles.setdefault(m.model_dump_json(exclude={"name"}), ([], m))[0].append(f"{role} ({benchmark})")
    models += [(", ".join(who), m) for who, m in roles.values()]
    run_id = f"models-check-{uuid.uuid4().hex[:8]}"
    with model_session(params, run_id, usage=usage_out, models=[m for _, m in models]) as session:
        results = probe_all(session.door, models)
    table = fitting_table("role", "name", "model", "ok", "answer / failure", "latency s", "attempts")
    for r in results:
        ok = "yes" if r.ok else "[red]no[/]"
        table.add_row(r.role, r.name, escape(r.model), ok, escape(r.detail), f"{r.latency_s:.2f}", str(r.attempts))
    console(stderr=True).print(table)
    for line in protocol_lines(params):
        console(stderr=True).print(escape(line), soft_wrap=True)
    for line in check_structured(params_file, models, results):
        console(stderr=True).print(escape(line), soft_wrap=True)
    for line in calibrate_all(params_file, models, results, calibration_out or CALIBRATION_FILE):
        console(stderr=True).print(escape(line), soft_wrap=True)
    if context:
        served = [n for n in params.agents if params.agent(n).api_base]
        agents = served or list(params.agents)[:1]
        say = lambda line: console(stderr=True).print(escape(line), soft_wrap=True)  # noqa: E731
        check_before_run(params, agents, None, say, params_file=params_file)
    failed = [r for r in results if not r.ok]
    if failed:
        raise ValueError(
            f"{len(failed)} of {len(results)} models did not answer: "
            + "; ".join(f"{r.name} ({r.detail})" for r in failed)
        )
    return f"{len(results)} models answered, 0 failed"

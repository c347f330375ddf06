"""Stage `personas`: a persona for every lay role of the J1 instances to be built (spec j1-envs §4).

dvc.yaml → this flow → steps.scenarios.j1.plan (which instances, hence which lay roles) → steps.personas
(Big-Five levels and behaviour style from the environment model through steps.llm; 2:1:2 redistribution,
legal-sense level and distractors, seeded). Writes data/processed/personas.parquet (+ accounting rows).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd
from prefect import task
from prefect.cache_policies import NO_CACHE

import steps.personas.scripted  # noqa: F401  (registers the scripted persona policies)
from flows.kit.config import PARAMS_FILE, Params, load_params
from flows.kit.models import check_calls, open_door, write_usage
from flows.kit.paths import INTERIM_DIR, PROCESSED
from flows.kit.progress import counter
from flows.kit.runs import run_id, run_spec
from flows.kit.stage import main, stage_flow
from flows.kit.tables import read_table, write_table
from steps.j1.params import J1Params
from steps.personas.generate import PROMPT_VERSION, generate
from steps.personas.table import persona_rows
from steps.scenarios.j1.plan import Plan, instance_plan
from steps.schemas import ARROW_TYPES, Cases, Personas, TopicSources

OUT = PROCESSED / "personas.parquet"
USAGE = PROCESSED / "j1/personas/usage.parquet"


def read_plan(params: Params, processed: Path = PROCESSED, interim: Path = INTERIM_DIR) -> Plan:
    """The J1 instances the params ask for (the same plan in stages `personas` and `instances`)."""
    j1 = params.section(J1Params)
    cases = read_table(processed / "cases.parquet", Cases)
    civil = pd.read_parquet(interim / "judgments_civil.parquet", columns=["case_id", "cause"])  # case types
    topics = read_table(processed / "topics.parquet", TopicSources)
    return instance_plan(cases, civil, topics, j1.instances.resolved(), seed=j1.instances.seed)


@task(cache_policy=NO_CACHE)
def write_personas(the_plan: Plan, params: Params, usage: Path) -> pd.DataFrame:
    model = params.environment_model()
    seed = params.section(J1Params).personas.seed
    subjects = [d.subject for d in the_plan.drafts if d.subject is not None]
    door = open_door(params, run_id(run_spec(model, "personas", prompt_version=PROMPT_VERSION, seed=seed)))
    try:
        with counter(f"personas ({model.model})", len(subjects)) as advance:

            async def one(subject):
                persona = await generate(door, model, subject, seed=seed)
                advance()
                return persona

            async def every():
                return await asyncio.gather(*(one(s) for s in subjects))

            personas = asyncio.run(every())
        write_usage(door, usage)
    finally:
        door.close()
    sources = {d.subject.key: d.source_ids for d in the_plan.drafts if d.subject is not None}
    return persona_rows(zip(subjects, personas, strict=True), sources=sources, seed=seed, proxy=model.is_scripted)


@stage_flow("personas")
def personas(
    params_file: Path = PARAMS_FILE,
    processed: Path = PROCESSED,
    interim: Path = INTERIM_DIR,
    out: Path = OUT,
    usage: Path = USAGE,
) -> str:
    params = load_params(params_file)
    rows = write_personas(read_plan(params, processed, interim), params, usage)
    valid = write_table(rows, out, Personas, table="personas", arrow_types=ARROW_TYPES["personas"])
    check_calls(params, usage)
    failed = int(valid.failure.notna().sum())
    per = ", ".join(f"{s} {n}" for s, n in valid.scenario.value_counts().sort_index().items())
    return (
        f"{len(valid) - failed:,} personas done ({per}), 0 skipped, {failed} failed "
        f"(model {params.environment.model}, seed {params.section(J1Params).personas.seed})"
    )


if __name__ == "__main__":
    main("personas", personas)

"""Stage `j1_personas`: a persona for every lay role of the J1 instances to be built (spec j1-envs §4).

dvc.yaml → this flow → steps.j1.envs.common.plan (which instances, hence which lay roles) → steps.j1.personas
(Big-Five levels and behaviour style from the environment model through steps.llm; 2:1:2 redistribution,
legal-sense level and distractors, seeded). Writes data/j1/personas.parquet (+ personas_usage.parquet).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd
from prefect import task
from prefect.cache_policies import NO_CACHE

import steps.j1.personas.scripted  # noqa: F401  (registers the scripted persona policies)
from flows.kit.config import PARAMS_FILE, Params, load_params
from flows.kit.models import check_calls, model_session
from flows.kit.paths import PATHS, Paths
from flows.kit.progress import counter
from flows.kit.stage import main, stage_flow
from steps.j1.envs.common.instance_table import plan_personas
from steps.j1.envs.common.plan import Plan, instance_plan
from steps.j1.envs.schemas import TopicSources
from steps.j1.extract.schemas import Cases
from steps.j1.params import J1Params
from steps.j1.personas.generate import PROMPT_VERSION
from steps.j1.personas.schemas import PERSONAS_ARROW_TYPES, Personas
from steps.runs import run_id, run_spec
from steps.tables import read_table, write_table

USAGE = "personas_usage.parquet"  # in data/j1/


def read_plan(params: Params, paths: Paths = PATHS) -> Plan:
    """The J1 instances the params ask for (the same plan in stages `j1_personas` and `j1_instances`)."""
    shared = paths.shared("j1")
    cases = read_table(shared / "cases.parquet", Cases)
    civil = pd.read_parquet(paths.interim / "judgments_civil.parquet", columns=["case_id", "cause"])  # case types
    topics = read_table(shared / "topics.parquet", TopicSources)
    return instance_plan(cases, civil, topics, params.section(J1Params).instances)


@task(cache_policy=NO_CACHE)
def write_personas(the_plan: Plan, params: Params, usage: Path) -> pd.DataFrame:
    personas = params.section(J1Params).personas
    model, seed = personas.resolve_model(params.environment_model()), personas.seed
    subjects = sum(d.subject is not None for d in the_plan.drafts)
    rid = run_id(run_spec(model, "personas", prompt_version=PROMPT_VERSION, seed=seed))
    with (
        model_session(params, rid, usage=usage) as session,
        counter(f"personas ({model.model})", subjects) as advance,
    ):
        return asyncio.run(plan_personas(session.door, model, the_plan, seed=seed, on_done=advance))


@stage_flow
def j1_personas(params_file: Path = PARAMS_FILE, paths: Paths = PATHS) -> str:
    """A persona for every lay role of the instances to be built."""
    params = load_params(params_file)
    personas = params.section(J1Params).personas
    usage = paths.shared("j1") / USAGE
    rows = write_personas(read_plan(params, paths), params, usage)
    out = paths.shared("j1") / "personas.parquet"
    valid = write_table(rows, out, Personas, table="personas", arrow_types=PERSONAS_ARROW_TYPES)
    check_calls(params, usage)
    failed = int(valid.failure.notna().sum())
    per = ", ".join(f"{s} {n}" for s, n in valid.scenario.value_counts().sort_index().items())
    return (
        f"{len(valid) - failed:,} personas done ({per}), 0 skipped, {failed} failed "
        f"(model {personas.resolve_model(params.environment_model()).model}, seed {personas.seed})"
    )


if __name__ == "__main__":
    main(j1_personas)

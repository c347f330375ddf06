"""Stage `j1_instances`: J1 environment instances, one row per instance, and the instances report.

dvc.yaml → this flow → steps.j1.envs.common.plan (the seeded sample, each scenario's builder in
steps/j1/envs/<code>/instances.py) → steps.j1.envs.common.built.finish (the persona's style into its role) →
steps/sql/instances_*.sql (DuckDB) → steps.j1.envs.report. Writes data/j1/instances.parquet,
data/j1/instance_skips.parquet and reports/instances.{md,csv}.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd
from prefect import task
from prefect.cache_policies import NO_CACHE

from flows.kit.config import PARAMS_FILE, Params, load_params
from flows.kit.monitor import publish_report
from flows.kit.paths import PATHS, Paths
from flows.kit.stage import main, stage_flow
from steps.j1.envs.common.instance_table import instance_tables
from steps.j1.envs.common.plan import Plan, instance_plan
from steps.j1.envs.registry import instance_sizes, register_environments
from steps.j1.envs.report import InstancesReport, instances_long, render_instances
from steps.j1.envs.schemas import Instances, InstanceSkips, TopicSources, instances_arrow_types
from steps.j1.envs.sql import QUERIES as SQL
from steps.j1.extract.schemas import Cases
from steps.j1.params import J1Params
from steps.j1.personas.schemas import Personas
from steps.reports.long import long_csv
from steps.sql import register_parquet
from steps.tables import read_table, write_table, write_text_atomic

QUERIES = (
    "instances_counts",
    "instances_skip_reasons",
    "instances_traits",
    "instances_legal_sense",
    "instances_causes",
    "instances_charges",
    "instances_topics",
)


@task(cache_policy=NO_CACHE)
def build(the_plan: Plan, personas: pd.DataFrame, params: Params) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Instances and skips: the plan's drafts finished with their personas (a failed persona skips one)."""
    return instance_tables(the_plan, personas, seed=params.section(J1Params).instances.seed)


@task(cache_policy=NO_CACHE)
def summarise(shared: Path) -> dict[str, pd.DataFrame]:
    with duckdb.connect() as con:
        register_parquet(
            con, {name: shared / f"{name}.parquet" for name in ("instances", "instance_skips", "personas")}
        )
        register_environments(con)
        return {name: SQL.run(con, name) for name in QUERIES}


@stage_flow
def j1_instances(params_file: Path = PARAMS_FILE, paths: Paths = PATHS) -> str:
    """The instances of the J1 environments, and the instances report."""
    params = load_params(params_file)
    j1, shared, report = params.section(J1Params), paths.shared("j1"), paths.reports / "instances.md"
    cases = read_table(shared / "cases.parquet", Cases)
    civil = pd.read_parquet(paths.interim / "judgments_civil.parquet", columns=["case_id", "cause"])  # case types
    topics = read_table(shared / "topics.parquet", TopicSources)
    the_plan = instance_plan(cases, civil, topics, j1.instances)
    personas = read_table(shared / "personas.parquet", Personas)
    rows, skips = build(the_plan, personas, params)
    valid = write_table(
        rows, shared / "instances.parquet", Instances, table="instances", arrow_types=instances_arrow_types()
    )
    write_table(
        skips,
        shared / "instance_skips.parquet",
        InstanceSkips,
        table="instance_skips",
        arrow_types={"source_ids": instances_arrow_types()["source_ids"]},
    )
    env = params.environment_model()
    r = InstancesReport(
        env.model,
        env.is_scripted,
        j1.instances.seed,
        j1.personas.seed,
        j1.topics.method,
        the_plan.eligibility,
        summarise(shared),
    )
    write_text_atomic(report, render_instances(r))
    csv = long_csv(instances_long(r), table="reports/instances.csv", with_failed=False)
    write_text_atomic(report.with_suffix(".csv"), csv)
    publish_report(report, "The J1 environment instances (J1 Table 5 / Fig. 2 layouts)")
    wanted = list(instance_sizes(j1.instances.sizes))
    per = ", ".join(f"{s} {n}" for s, n in valid.scenario.value_counts().reindex(wanted).fillna(0).astype(int).items())
    return f"{len(valid):,} instances done ({per}), {len(skips):,} skipped with a reason, 0 failed; {report} written"


if __name__ == "__main__":
    main(j1_instances)

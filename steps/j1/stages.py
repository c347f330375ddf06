"""J1-ENVS's stage bodies (declared in steps/j1/benchmark.py): the environments' sources, personas and instances.
Each takes its `StageContext` and returns its one-line summary.

- `extract`: judgments → legal elements, one row per case (steps.j1.extract: the parser; the LLM fields from the
  environment model, cross-checked), and the extraction report (steps/sql/extraction_*.sql). Writes
  data/j1/{cases,extraction_issues,extract_usage}.parquet and reports/extraction.{md,csv}. `extract_cases` is
  also what `jurisflow j1 extract-judgments` runs on any JuDGE- or C3RD-shaped file (steps/j1/commands.py).
- `topics`: the KQ and LC topic lists from LawBench Q&A items (steps.j1.envs.common.topic_table; with
  `j1.topics.method: llm`, J1's procedure through the model door). Writes data/j1/topics.parquet (+ topics_usage).
- `personas`: a persona for every lay role of the instances to be built (steps.j1.envs.common.plan, then
  steps.j1.personas through the model door). Writes data/j1/personas.parquet (+ personas_usage).
- `instances`: the instances of the J1 environments (the plan's drafts finished with their personas) and the
  instances report (steps/sql/instances_*.sql). Writes data/j1/{instances,instance_skips}.parquet and
  reports/instances.{md,csv}.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import pandas as pd

from steps.j1.extract.schemas import Cases
from steps.j1.params import J1Params
from steps.stages import ModelSession, StageContext

if TYPE_CHECKING:
    from steps.j1.envs.common.plan import Plan
    from steps.j1.extract.inputs import CaseInput
    from steps.llm import ModelConfig
    from steps.params import Params

EXTRACT_USAGE = "extract_usage.parquet"  # in data/j1/
TOPICS_USAGE = "topics_usage.parquet"
PERSONAS_USAGE = "personas_usage.parquet"
FIXTURE = Path("tests/j1/extract/fixtures/verdicts.json")  # the hand-checked verdicts (see its `_about`)
INSTANCES_QUERIES = (
    "instances_counts",
    "instances_skip_reasons",
    "instances_traits",
    "instances_legal_sense",
    "instances_causes",
    "instances_charges",
    "instances_topics",
)


# ------------------------------------------------------------------ extract
def extraction_model(params: Params) -> ModelConfig:
    """`j1.extract.model`, or the environment model when it is not set."""
    return params.section(J1Params).extract.resolve_model(params.environment_model("j1"))


def parse(criminal: pd.DataFrame, civil: pd.DataFrame, limit: int | None = None) -> list[CaseInput]:
    from steps.j1.extract.inputs import case_inputs

    return case_inputs(criminal, civil, limit)


def extract_cases(
    ctx: StageContext, cases: list[CaseInput], usage: Path | None
) -> tuple[pd.DataFrame, pd.DataFrame, ModelSession]:
    """LLM fields for every case, cross-checked; returns the validated cases and issues tables and the session
    (its door holds the calls' accounting rows)."""
    import steps.j1.extract.scripted  # noqa: F401  (registers the scripted extraction policy)
    from steps.j1.extract.prompts import PROMPT_VERSION
    from steps.j1.extract.records import cases_table, extract_checked, issues_table, provenance_of
    from steps.j1.extract.schemas import ExtractionIssues
    from steps.j1.extract.version import parser_version
    from steps.runs import run_id, run_spec
    from steps.schemas import validate

    model, attempts = extraction_model(ctx.params), ctx.params.section(J1Params).extract.max_attempts
    spec = run_spec(
        model,
        "extract",
        prompt_version=PROMPT_VERSION,
        parser_version=parser_version(),
        max_attempts=attempts,
    )
    provenance = provenance_of(model, run_id(spec))
    with ctx.model_session(provenance.run_id, usage=usage) as session:
        with ctx.counter(f"extract ({model.model})", len(cases)) as advance:
            extracted = asyncio.run(extract_checked(session.door, model, cases, max_attempts=attempts, on_done=advance))
        frames = (
            validate(cases_table(extracted, provenance), Cases, table="cases"),
            validate(issues_table(extracted), ExtractionIssues, table="extraction_issues"),
        )
    return (*frames, session)


def extract_summary(cases: pd.DataFrame, issues: pd.DataFrame) -> str:
    """The one-line summary of an extraction (the stage's and `jurisflow j1 extract-judgments`')."""
    kinds = cases["kind"].value_counts()
    stages = issues["stage"].value_counts()
    failed = int(issues["kind"].isin(["call_failed", "invalid"]).sum())
    return (
        f"{len(cases):,} cases ({kinds.get('criminal', 0)} criminal, {kinds.get('civil', 0)} civil); "
        f"{len(issues):,} issues (parser {stages.get('parser', 0):,}, llm {stages.get('llm', 0):,}, "
        f"crosscheck {stages.get('crosscheck', 0):,}); {failed} failed model answers; "
        f"LLM fields from {cases['llm_fields_source'].iloc[0] if len(cases) else '-'}"
    )


def parser_figures(criminal: pd.DataFrame, civil: pd.DataFrame, fixture: Path) -> dict:
    """The parser's accuracy figures (criminal articles, civil pairs raw and label_space, verdict fixture)."""
    from steps.j1.extract.evaluate import figures

    if not fixture.is_file():
        raise FileNotFoundError(f"{fixture}: verdict fixture not found")
    return figures(criminal, civil, json.loads(fixture.read_text(encoding="utf-8")))


def _extraction_queries(ctx: StageContext, out_dir: Path) -> dict[str, pd.DataFrame]:
    from steps.j1.extract.sql import QUERIES
    from steps.sql import register_parquet, run_query

    tables = {
        "cases": ctx.input_path(out_dir / "cases.parquet"),
        "extraction_issues": ctx.input_path(out_dir / "extraction_issues.parquet"),
    }
    with duckdb.connect() as con:
        register_parquet(con, tables)
        queries = [
            "extraction_coverage",
            "extraction_issue_counts",
            "extraction_model_issues",
            "extraction_parser_issues",
        ]
        out = {name: QUERIES.run(con, name) for name in queries}
        if ctx.exists(out_dir / EXTRACT_USAGE):
            register_parquet(con, {"model_usage": ctx.input_path(out_dir / EXTRACT_USAGE)})
            out["usage"] = run_query(con, "data_model_usage")
    return out


def extract(ctx: StageContext) -> str:
    """Extract every judgment of the interim tables; write the tables, then the report."""
    from steps.j1.extract.prompts import PROMPT_VERSION
    from steps.j1.extract.records import answer_rows
    from steps.j1.extract.report import ExtractionReport, extraction_long, render_extraction
    from steps.j1.extract.schemas import CASES_ARROW_TYPES, ExtractionIssues
    from steps.j1.sources import JudgmentsCivil, JudgmentsCriminal
    from steps.reports.long import long_csv

    params, paths = ctx.params, ctx.paths
    out_dir, report = paths.shared("j1"), paths.reports / "extraction.md"
    criminal = ctx.read_table(paths.interim / "judgments_criminal.parquet", JudgmentsCriminal)
    civil = ctx.read_table(paths.interim / "judgments_civil.parquet", JudgmentsCivil)
    limit = params.section(J1Params).extract.limit
    cases = ctx.task(parse)(criminal, civil, limit)
    cases_df, issues_df, _ = ctx.task(extract_cases)(ctx, cases, out_dir / EXTRACT_USAGE)
    ctx.write_table(cases_df, out_dir / "cases.parquet", Cases, table="cases", arrow_types=CASES_ARROW_TYPES)
    ctx.write_table(issues_df, out_dir / "extraction_issues.parquet", ExtractionIssues, table="extraction_issues")
    model = extraction_model(params)
    queries = ctx.task(_extraction_queries, name="summarise")(ctx, out_dir)
    r = ExtractionReport(
        model.model,
        model.is_scripted,
        str(cases_df["parser_version"].iloc[0]),
        PROMPT_VERSION,
        str(cases_df["run_id"].iloc[0]),
        cases_df["kind"].value_counts().to_dict(),
        limit,
        queries["extraction_coverage"],
        queries["extraction_issue_counts"],
        queries["extraction_model_issues"],
        queries["extraction_parser_issues"],
        queries.get("usage"),
        parser_figures(criminal, civil, ctx.input_path(FIXTURE)),
    )
    markdown = render_extraction(r)
    ctx.write_text(report, markdown)
    csv = long_csv(extraction_long(r), table="reports/extraction.csv", with_failed=False, with_unparsable=True)
    ctx.write_text(report.with_suffix(".csv"), csv)
    description = "Legal elements extracted from the judgments: coverage, disagreements, parser accuracy"
    ctx.publish_markdown("report-extraction", markdown, description)
    answers = answer_rows(cases_df, issues_df, model.model)
    answers.attrs["source"] = f"{out_dir / 'extraction_issues.parquet'} with kind invalid"
    ctx.check_calls(out_dir / EXTRACT_USAGE, judged=[answers])
    return extract_summary(cases_df, issues_df) + f"; {report} written"


# ------------------------------------------------------------------ topics
def _rewrite(ctx: StageContext, rows: pd.DataFrame, items: pd.DataFrame, usage: Path) -> tuple[pd.DataFrame, int]:
    """J1's procedure: the environment model turns each source into a topic list (failures keep no row).

    With `derived`, no model is called and the accounting table is written empty."""
    from steps.j1.envs.common.topic_model import PROMPT_VERSION, rewrite_sources
    from steps.runs import run_id, run_spec

    topics = ctx.params.section(J1Params).topics
    model = ctx.params.environment_model("j1")
    rid, failed = run_id(run_spec(model, "topics", prompt_version=PROMPT_VERSION)), 0
    with ctx.model_session(rid, usage=usage) as session:
        if topics.method == "llm":
            total = len(rows) if topics.llm_limit is None else 2 * topics.llm_limit
            with ctx.counter(f"topics ({model.model})", min(total, len(rows))) as advance:
                rows, failed = asyncio.run(
                    rewrite_sources(
                        session.door,
                        model,
                        rows,
                        items,
                        limit=topics.llm_limit,
                        seed=topics.seed,
                        on_done=advance,
                    )
                )
    return rows, failed


def topics(ctx: StageContext) -> str:
    """The KQ and LC topic lists."""
    from steps.j1.envs.common.topic_table import derive_topics
    from steps.j1.envs.schemas import TopicSources, topics_arrow_types
    from steps.sources.tables import interim_tables

    schema = interim_tables()["lawbench_items"].schema  # steps/lawbench/sources.py (a code dep)
    out_dir, method = ctx.paths.shared("j1"), ctx.params.section(J1Params).topics.method
    items = ctx.read_table(ctx.paths.interim / "lawbench_items.parquet", schema)
    derived = ctx.task(derive_topics, name="derive")(items, ctx.params.section(J1Params).topics)
    rows, failed = ctx.task(_rewrite, name="rewrite")(ctx, derived, items, out_dir / TOPICS_USAGE)
    valid = ctx.write_table(
        rows, out_dir / "topics.parquet", TopicSources, table="topics", arrow_types=topics_arrow_types()
    )
    ctx.check_calls(out_dir / TOPICS_USAGE)
    kinds = pd.Series([t["kind"] for ts in valid.topics for t in ts]).value_counts()
    per = valid.scenario.value_counts()
    return (
        f"{len(valid):,} topic sources done (KQ {per.get('KQ', 0)}, LC {per.get('LC', 0)}; "
        f"{method}), 0 skipped, {failed} failed; topics: {kinds.get('binary', 0):,} binary, "
        f"{kinds.get('open_statute', 0):,} statute, {kinds.get('open_phrase', 0):,} phrase"
    )


# ------------------------------------------------------------------ personas and instances
def read_plan(ctx: StageContext) -> Plan:
    """The J1 instances the params ask for (the same plan in stages `j1_personas` and `j1_instances`)."""
    from steps.j1.envs.common.plan import instance_plan
    from steps.j1.envs.schemas import TopicSources

    shared = ctx.paths.shared("j1")
    cases = ctx.read_table(shared / "cases.parquet", Cases)
    civil = pd.read_parquet(  # the case types
        ctx.input_path(ctx.paths.interim / "judgments_civil.parquet"), columns=["case_id", "cause"]
    )
    topic_sources = ctx.read_table(shared / "topics.parquet", TopicSources)
    return instance_plan(cases, civil, topic_sources, ctx.params.section(J1Params).instances)


def _write_personas(ctx: StageContext, the_plan: Plan, usage: Path) -> pd.DataFrame:
    import steps.j1.personas.scripted  # noqa: F401  (registers the scripted persona policies)
    from steps.j1.envs.common.instance_table import plan_personas
    from steps.j1.personas.generate import PROMPT_VERSION
    from steps.runs import run_id, run_spec

    settings = ctx.params.section(J1Params).personas
    model, seed = settings.resolve_model(ctx.params.environment_model("j1")), settings.seed
    subjects = sum(d.subject is not None for d in the_plan.drafts)
    rid = run_id(run_spec(model, "personas", prompt_version=PROMPT_VERSION, seed=seed))
    with (
        ctx.model_session(rid, usage=usage) as session,
        ctx.counter(f"personas ({model.model})", subjects) as advance,
    ):
        return asyncio.run(plan_personas(session.door, model, the_plan, seed=seed, on_done=advance))


def personas(ctx: StageContext) -> str:
    """A persona for every lay role of the instances to be built."""
    from steps.j1.personas.schemas import PERSONAS_ARROW_TYPES, Personas

    settings = ctx.params.section(J1Params).personas
    usage = ctx.paths.shared("j1") / PERSONAS_USAGE
    rows = ctx.task(_write_personas, name="write_personas")(ctx, read_plan(ctx), usage)
    out = ctx.paths.shared("j1") / "personas.parquet"
    valid = ctx.write_table(rows, out, Personas, table="personas", arrow_types=PERSONAS_ARROW_TYPES)
    ctx.check_calls(usage)
    failed = int(valid.failure.notna().sum())
    per = ", ".join(f"{s} {n}" for s, n in valid.scenario.value_counts().sort_index().items())
    return (
        f"{len(valid) - failed:,} personas done ({per}), 0 skipped, {failed} failed "
        f"(model {settings.resolve_model(ctx.params.environment_model('j1')).model}, seed {settings.seed})"
    )


def _instances_queries(ctx: StageContext, shared: Path) -> dict[str, pd.DataFrame]:
    from steps.j1.envs.registry import register_environments
    from steps.j1.envs.sql import QUERIES
    from steps.sql import register_parquet

    with duckdb.connect() as con:
        register_parquet(
            con,
            {name: ctx.input_path(shared / f"{name}.parquet") for name in ("instances", "instance_skips", "personas")},
        )
        register_environments(con)
        return {name: QUERIES.run(con, name) for name in INSTANCES_QUERIES}


def instances(ctx: StageContext) -> str:
    """The instances of the J1 environments, and the instances report."""
    from steps.j1.envs.common.instance_table import instance_tables
    from steps.j1.envs.provenance import provenance
    from steps.j1.envs.registry import instance_sizes
    from steps.j1.envs.report import InstancesReport, instances_long, render_instances
    from steps.j1.envs.schemas import Instances, InstanceSkips, instances_arrow_types
    from steps.j1.personas.schemas import Personas
    from steps.reports.long import long_csv

    j1, shared, report = ctx.params.section(J1Params), ctx.paths.shared("j1"), ctx.paths.reports / "instances.md"
    the_plan = read_plan(ctx)
    persona_rows = ctx.read_table(shared / "personas.parquet", Personas)
    # the plan's drafts finished with their personas (a failed persona skips one)
    rows, skips = ctx.task(instance_tables, name="build")(the_plan, persona_rows, seed=j1.instances.seed)
    valid = ctx.write_table(
        rows, shared / "instances.parquet", Instances, table="instances", arrow_types=instances_arrow_types()
    )
    ctx.write_table(
        skips,
        shared / "instance_skips.parquet",
        InstanceSkips,
        table="instance_skips",
        arrow_types={"source_ids": instances_arrow_types()["source_ids"]},
    )
    env = ctx.params.environment_model("j1")
    r = InstancesReport(
        env.model,
        env.is_scripted,
        j1.instances.seed,
        j1.personas.seed,
        j1.topics.method,
        the_plan.eligibility,
        ctx.task(_instances_queries, name="summarise")(ctx, shared),
        provenance(valid),
    )
    markdown = render_instances(r)
    ctx.write_text(report, markdown)
    csv = long_csv(instances_long(r), table="reports/instances.csv", with_failed=False)
    ctx.write_text(report.with_suffix(".csv"), csv)
    ctx.publish_markdown("report-instances", markdown, "The J1 environment instances (J1 Table 5 / Fig. 2 layouts)")
    wanted = list(instance_sizes(j1.instances.sizes))
    per = ", ".join(f"{s} {n}" for s, n in valid.scenario.value_counts().reindex(wanted).fillna(0).astype(int).items())
    return f"{len(valid):,} instances done ({per}), {len(skips):,} skipped with a reason, 0 failed; {report} written"

"""The model-calling stages of `jurisflow estimate`, each as its flow runs it but through a `StandInDoor`.

Every function here reads what its stage reads (through `Paths`), prepares the stage's inputs with the same step
functions its flow (flows/<stage>.py) calls (`case_inputs`, `instance_plan`, `select_instances`, `select_items`,
`mile_sample`, `consultations` …: one function for both, so the estimate follows every change of a flow's
preparation), calls the same steps with the same params sections, and hands on, in memory, the tables the next
stage reads; tables pass through Parquet in a scratch folder (`Scratch.through`) so that they reach the next step
with the types the stage's reader gives them. Nothing is written under the project, and nothing here imports
Prefect. The estimate's call counts are checked against the usage tables of a real scripted run
(tests/evaluate/test_estimate_scripted.py).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa_arrow

from flows.kit.config import Params
from flows.kit.paths import PATHS, Paths
from steps.j1.extract.schemas import CASES_ARROW_TYPES
from steps.j1.personas.schemas import PERSONAS_ARROW_TYPES
from steps.llm.standin import StandInDoor
from steps.tables import read_table, write_table

POLICY_VERSION = "estimate"  # stands for the J1 code fingerprint in scripted calls' metadata (steps only read it)
RUN_ID = "estimate"  # the run id of every table the estimate hands on (never written)


@dataclass
class Scratch:
    """A folder for the tables one stage hands to the next, written and read back as the stages do."""

    folder: Path

    def through(
        self, df: pd.DataFrame, schema: type, name: str, arrow_types: dict[str, pa_arrow.DataType] | None = None
    ) -> pd.DataFrame:
        path = self.folder / f"{name}.parquet"
        write_table(df, path, schema, table=name, arrow_types=arrow_types)
        return read_table(path, schema)


def _run(coro):
    return asyncio.run(coro)


# ---------------------------------------------------------------- J1-ENVS: extract, topics, personas, instances
def j1_extract(door: StandInDoor, params: Params, scratch: Scratch, paths: Paths = PATHS) -> pd.DataFrame:
    """Stage `j1_extract`: the LLM fields of every judgment (`j1.extract.limit` per source); the cases table."""
    import steps.j1.extract.scripted  # noqa: F401  (the scripted extraction policy)
    from steps.j1.extract.inputs import case_inputs
    from steps.j1.extract.records import cases_table, extract_checked, provenance_of
    from steps.j1.extract.schemas import Cases
    from steps.j1.params import J1Params
    from steps.j1.sources import JudgmentsCivil, JudgmentsCriminal

    extract = params.section(J1Params).extract
    criminal = read_table(paths.interim / "judgments_criminal.parquet", JudgmentsCriminal)
    civil = read_table(paths.interim / "judgments_civil.parquet", JudgmentsCivil)
    model = extract.resolve_model(params.environment_model())
    cases = case_inputs(criminal, civil, extract.limit)
    extracted = _run(extract_checked(door, model, cases, max_attempts=extract.max_attempts))
    return scratch.through(cases_table(extracted, provenance_of(model, RUN_ID)), Cases, "cases", CASES_ARROW_TYPES)


def j1_topics(door: StandInDoor, params: Params, scratch: Scratch, paths: Paths = PATHS) -> pd.DataFrame:
    """Stage `j1_topics`: derived by rules (no call), or with `j1.topics.method: llm` rewritten by the environment
    model."""
    from steps.j1.envs.common.topic_model import rewrite_sources
    from steps.j1.envs.common.topic_table import derive_topics
    from steps.j1.envs.schemas import TopicSources, topics_arrow_types
    from steps.j1.params import J1Params
    from steps.lawbench.sources import LawBenchItems

    topics = params.section(J1Params).topics
    items = read_table(paths.interim / "lawbench_items.parquet", LawBenchItems)
    rows = derive_topics(items, topics)
    if topics.method == "llm":
        model = params.environment_model()
        rows, _ = _run(rewrite_sources(door, model, rows, items, limit=topics.llm_limit, seed=topics.seed))
    return scratch.through(rows, TopicSources, "topics", topics_arrow_types())


def j1_personas(
    door: StandInDoor, params: Params, scratch: Scratch, cases: pd.DataFrame, topics: pd.DataFrame, paths: Paths
):
    """Stage `j1_personas`: a persona for every lay role of the planned instances; returns (plan, personas)."""
    import steps.j1.personas.scripted  # noqa: F401  (the scripted persona policies)
    from steps.j1.envs.common.instance_table import plan_personas
    from steps.j1.envs.common.plan import instance_plan
    from steps.j1.params import J1Params
    from steps.j1.personas.schemas import Personas

    j1 = params.section(J1Params)
    civil = pd.read_parquet(paths.interim / "judgments_civil.parquet", columns=["case_id", "cause"])
    the_plan = instance_plan(cases, civil, topics, j1.instances)
    rows = _run(
        plan_personas(door, j1.personas.resolve_model(params.environment_model()), the_plan, seed=j1.personas.seed)
    )
    return the_plan, scratch.through(rows, Personas, "personas", PERSONAS_ARROW_TYPES)


def j1_instances(params: Params, scratch: Scratch, the_plan, personas: pd.DataFrame) -> pd.DataFrame:
    """Stage `j1_instances` (no model call): the plan's drafts finished with their personas."""
    from steps.j1.envs.common.instance_table import instance_tables
    from steps.j1.envs.schemas import Instances, instances_arrow_types
    from steps.j1.params import J1Params

    rows, _ = instance_tables(the_plan, personas, seed=params.section(J1Params).instances.seed)
    return scratch.through(rows, Instances, "instances", instances_arrow_types())


# ---------------------------------------------------------------- J1: simulate, judge
def j1_simulate(door: StandInDoor, params: Params, scratch: Scratch, name: str, instances: pd.DataFrame):
    """Stage `j1_simulate@<agent>`: the agent in the J1 environments; returns (turns, dialogues)."""
    from steps.j1.envs.common.stages import court_stages
    from steps.j1.envs.registry import SCENARIOS, select_instances
    from steps.j1.params import J1Params
    from steps.schemas import Dialogues, Turns
    from steps.simulate.records import RunLabel, run_tables
    from steps.simulate.runner import DoorSpeaker
    from steps.simulate.runner import simulate as run_all

    simulate = params.section(J1Params).simulate
    chosen = select_instances(instances, simulate, params.limit_for(name, "j1"))
    speak = DoorSpeaker(door, params.agent(name), params.environment_model(), policy_version=POLICY_VERSION)
    dialogues = _run(
        run_all(chosen, lambda i: SCENARIOS[i.scenario], speak, Forgetful(), max_concurrent=simulate.concurrency)
    )
    turns, rows = run_tables(
        dialogues,
        SCENARIOS.__getitem__,
        RunLabel(RUN_ID, name, "j1"),
        annotate=lambda scenario, turns: {"stage": court_stages(scenario, turns)},
    )
    return scratch.through(turns, Turns, f"turns-{name}"), scratch.through(rows, Dialogues, f"dialogues-{name}")


def j1_judge(door: StandInDoor, params: Params, instances: pd.DataFrame, turns, dialogues) -> None:
    """Stage `j1_judge@<agent>`: the J1-EVAL judges over the agent's dialogues."""
    import steps.j1.eval.scripted  # noqa: F401  (the proxy judge, with J1's kinds)
    from steps.j1.eval.case import Panel
    from steps.j1.eval.evaluate import build_cases, evaluate_run
    from steps.j1.params import J1Params

    evaluation = params.section(J1Params).eval
    panel = Panel(door, params.judge_model(), evaluation.procedure)
    _run(evaluate_run(build_cases(instances, turns, dialogues), panel, evaluation))


# ---------------------------------------------------------------- LawBench
def lawbench_predict(door: StandInDoor, params: Params, name: str, setting: str, paths: Paths = PATHS) -> None:
    """Stage `lawbench_predict@<agent>-<setting>`: one call per item (the agent's limit, `lawbench.tasks`)."""
    import steps.lawbench.scripted  # noqa: F401  (the scripted oracle)
    from steps.lawbench.params import LawBenchParams
    from steps.lawbench.predict import build_requests, select_items
    from steps.lawbench.sources import LawBenchItems

    items = read_table(paths.interim / "lawbench_items.parquet", LawBenchItems)
    items = select_items(items, setting, params.limit_for(name, "lawbench"), params.section(LawBenchParams).tasks)
    _run(door.complete_many(build_requests(items, params.agent(name))))


# ---------------------------------------------------------------- UCL-Bench
def ucl_simulate(
    door: StandInDoor, params: Params, scratch: Scratch, name: str | None, paths: Paths = PATHS
) -> pd.DataFrame:
    """Stage `ucl_simulate@<agent>` (or `ucl_reference` when `name` is None); returns its dialogues table."""
    import steps.ucl.scripted  # noqa: F401  (the scripted user, oracle and proxy judge)
    from steps.simulate.records import RunLabel
    from steps.ucl.dialogues import ucl_tables
    from steps.ucl.instances import build_instances, limit_items
    from steps.ucl.params import UclParams
    from steps.ucl.schemas import UclDialogues
    from steps.ucl.simulation import simulate_dialogues
    from steps.ucl.sources import Ucl

    ucl = params.section(UclParams)
    assistant = params.agent(name) if name else ucl.reference.resolve_reference()
    limit = params.limit_for(name, "ucl") if name else ucl.limit
    items = limit_items(read_table(paths.interim / "ucl.parquet", Ucl), limit, ucl.tasks)
    chosen = build_instances(items, max_exchanges=ucl.exchanges())
    dialogues = _run(simulate_dialogues(door, assistant, params.environment_model(), chosen, Forgetful()))
    _, rows = ucl_tables(dialogues, RunLabel(RUN_ID, assistant.name, "ucl"))
    return scratch.through(rows, UclDialogues, f"ucl-{assistant.name}")


def ucl_judge(door: StandInDoor, params: Params, name: str, dialogues, reference, paths: Paths = PATHS) -> None:
    """Stage `ucl_judge@<agent>`: both judge orders against the reference, and the pointwise hint scores."""
    from steps.ucl.instances import limit_items
    from steps.ucl.judging import RunIds, judge_run
    from steps.ucl.params import UclParams
    from steps.ucl.sources import Ucl

    ucl = params.section(UclParams)
    items = limit_items(read_table(paths.interim / "ucl.parquet", Ucl), params.limit_for(name, "ucl"), ucl.tasks)
    ids = RunIds(name, RUN_ID, ucl.reference.name, RUN_ID)
    judge_run(door, params.judge_model(), ucl, items, dialogues, reference, ids)


# ---------------------------------------------------------------- MILE
def mile_simulate(door: StandInDoor, params: Params, scratch: Scratch, name: str, paths: Paths = PATHS):
    """Stage `mile_simulate@<agent>`: the agent as the lawyer; returns (turns, dialogues, the MILE table)."""
    import steps.mile.oracle
    import steps.mile.scripted  # noqa: F401  (the scripted oracle lawyer, client and supervisor)
    from steps.mile.params import MileParams
    from steps.mile.run import mile_sample, mile_speaker
    from steps.mile.schemas import MileDialogues
    from steps.mile.sources import Mile
    from steps.schemas import Turns
    from steps.simulate.records import RunLabel
    from steps.simulate.runner import simulate as run_all

    p = params.section(MileParams)
    mile = read_table(paths.interim / "mile.parquet", Mile)
    sample = mile_sample(mile, p, params.limit_for(name, "mile"))
    speak = mile_speaker(door, params.agent(name), params.environment_model(), p)
    dialogues = _run(run_all(sample.instances, lambda _: sample.scenario, speak, Forgetful()))
    turns, rows = sample.tables(dialogues, RunLabel(RUN_ID, name, "mile"))
    return (
        scratch.through(turns, Turns, f"mile-turns-{name}"),
        scratch.through(rows, MileDialogues, f"mile-dialogues-{name}"),
        mile,
    )


def mile_judge(door: StandInDoor, params: Params, turns, dialogues, mile) -> None:
    """Stage `mile_judge@<agent>`: goal, interaction and consistency judgements of the agent's dialogues."""
    import steps.mile.proxy  # noqa: F401  (the proxy judge for MILE)
    from steps.mile.evaluate import plan_evaluation
    from steps.mile.judging import run_tasks
    from steps.mile.params import MileParams

    plan = plan_evaluation(mile, dialogues, turns, params.section(MileParams))
    _run(run_tasks(door, params.judge_model(), plan.tasks))


# ---------------------------------------------------------------- PLawBench
def plawbench_predict(door: StandInDoor, params: Params, scratch: Scratch, name: str, paths: Paths = PATHS):
    """Stage `plawbench_predict@<agent>`: single-turn answers, then the multi-turn consultations; returns
    (responses, tasks, rubric)."""
    import steps.plawbench.scripted  # noqa: F401  (the scripted PLawBench policies)
    from steps.plawbench import dialogue
    from steps.plawbench.params import PlawBenchParams
    from steps.plawbench.predict import build_requests, multiturn_frame, responses_frame, select_tasks
    from steps.plawbench.schemas import PlawResponses, PlawRubricItems, PlawTasks
    from steps.simulate.runner import DoorSpeaker
    from steps.simulate.runner import simulate as run_all

    p = params.section(PlawBenchParams)
    agent, environment = params.agent(name), params.environment_model()
    tasks_all = read_table(paths.shared("plawbench") / "tasks.parquet", PlawTasks)  # what plawbench_judge reads
    tasks = select_tasks(tasks_all, params.limit_for(name, "plawbench"), p.scenarios)
    rubric = read_table(paths.shared("plawbench") / "rubric_items.parquet", PlawRubricItems)

    async def both() -> pd.DataFrame:
        requests = build_requests(tasks, rubric, agent, p)
        responses = responses_frame(tasks, requests, await door.complete_many(requests), agent.name, RUN_ID)
        if not p.multiturn.enabled:
            return responses
        consult, chosen = dialogue.consultations(tasks, rubric, p.multiturn.max_turns)
        scenario = dialogue.scenario(p.multiturn.max_turns)
        made = await run_all(chosen, lambda _: scenario, DoorSpeaker(door, agent, environment), Forgetful())
        return pd.concat([responses, multiturn_frame(consult, made, agent.name, RUN_ID)], ignore_index=True)

    responses = _run(both())
    return scratch.through(responses, PlawResponses, f"plaw-responses-{name}"), tasks_all, rubric


def plawbench_judge(door: StandInDoor, params: Params, responses, tasks, rubric) -> None:
    """Stage `plawbench_judge@<agent>`: one rubric judgement per response (and, opt-in, the T1 penalties)."""
    import steps.plawbench.scripted  # noqa: F401  (the proxy judge, with PLawBench's kind)
    from steps.plawbench.judging import judge_all, judge_penalties_all
    from steps.plawbench.params import PlawBenchParams

    p, model = params.section(PlawBenchParams), params.judge_model()
    results = _run(judge_all(door, model, tasks, rubric, responses, p, repairs=p.judge_repairs))
    if p.t1_penalties == "paper":
        _run(judge_penalties_all(door, model, tasks, results, repairs=p.judge_repairs))


# ---------------------------------------------------------------- a journal that keeps nothing
class Forgetful:
    """The simulation journal's interface, keeping nothing: the estimate resumes nothing and writes nothing."""

    def finished(self, instance):
        return None

    def recorded(self, instance):
        return []

    def replay(self, instance, seq, digest):
        return None

    def record_call(self, *args, **kwargs) -> None:
        return None

    def record_done(self, *args, **kwargs) -> None:
        return None

    def close(self) -> None:
        return None

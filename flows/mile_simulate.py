"""Stage `mile_simulate` (one per agent): the agent drafts complaints as the lawyer of MASER's simulation.

dvc.yaml → this flow → steps.mile (instances, scenario, supervisor, scripted policies) → steps.simulate (the
engine, with a resume journal) → steps.llm (the model door). The agent plays the lawyer; the `environment`
model plays the client and the supervisor, each role with its own decoding (`mile.role_decoding`, see
steps/mile/decoding.py; run.json records the effective decoding per role). Writes
data/mile/runs/<agent>/{turns,dialogues,usage}.parquet and run.json. The journal lives in
.cache/journals/mile/<agent>/<run_id>.jsonl, outside the DVC outputs, so an interrupted run resumes where it
stopped."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pandas as pd

import steps.mile.oracle  # registers the scripted oracle lawyer
import steps.mile.scripted  # noqa: F401  (registers the scripted client and supervisor)
from flows.kit.config import PARAMS_FILE, load_params
from flows.kit.models import ModelSession, check_calls, model_session
from flows.kit.monitor import batches, follow_groups, publish_table
from flows.kit.paths import DIALOGUES, PATHS, TURNS, USAGE, Paths
from flows.kit.progress import counter
from flows.kit.stage import main, stage_flow
from steps.llm import ModelConfig
from steps.mile.params import MileParams
from steps.mile.run import mile_sample, mile_speaker
from steps.mile.scenario import mile_scenario, protocol_version
from steps.mile.schemas import MileDialogues
from steps.mile.sources import Mile
from steps.runs import begin_run, run_spec, write_run_json
from steps.schemas import Turns
from steps.simulate import Dialogue
from steps.simulate.records import RunLabel
from steps.simulate.runner import simulate
from steps.tables import read_table, write_table


def spec_of(agent: ModelConfig, environment: ModelConfig, p: MileParams) -> dict:
    """What changes the dialogues: the agent, the environment model and the effective decoding of each of its
    roles (`roles`; the lawyer's is the agent's `decoding`), the protocol options and the sample."""
    roles = {role: d.model_dump() for role, d in p.role_decodings(environment.decoding).items()}
    preset = p.role_decoding if isinstance(p.role_decoding, str) else "mapping"
    return run_spec(
        agent,
        "mile",
        environment={
            "model": environment.model,
            "decoding": environment.decoding.model_dump(),
            "role_decoding": preset,
            "roles": roles,
        },
        scenario_version=mile_scenario().version,
        protocol=protocol_version(),
        options=p.protocol(),
        sample=p.sample,
    )


BATCH = 20  # dialogues per task run in the Prefect UI


def run_dialogues(instances, scenario, speak, journal, label: str) -> list[Dialogue]:
    """Every dialogue in one engine call; in Prefect each batch of BATCH dialogues has a task run that ends with
    its last dialogue."""
    batch_of = batches([i.instance_id for i in instances], BATCH)
    with counter(label, len(instances)) as advance:

        def work(done):
            def on_done(dialogue: Dialogue) -> None:
                advance()
                done(batch_of[dialogue.instance_id])

            return simulate(instances, lambda _: scenario, speak, journal, on_done=on_done)

        return asyncio.run(follow_groups(dict(Counter(batch_of.values())), work))


@stage_flow
def mile_simulate(agent_name: str, params_file: Path = PARAMS_FILE, paths: Paths = PATHS) -> str:
    """Run one agent as the lawyer on the MILE sample; resumes an interrupted run."""
    params = load_params(params_file)
    agent, environment = params.agent(agent_name), params.environment_model()
    mile = read_table(paths.interim / "mile.parquet", Mile)
    p = params.section(MileParams)
    limit = params.limit_for(agent_name, "mile")  # the agent's own cap: the first N instances of the sample
    sample = mile_sample(mile, p, limit)
    run_dir = paths.run("mile", agent_name)
    spec = spec_of(agent, environment, p) | ({} if limit is None else {"limit": limit})
    rid = begin_run(run_dir, spec)
    journal = paths.journal("mile", agent_name, rid)
    with model_session(params, rid, usage=run_dir / USAGE, journal=journal) as session:
        speak = mile_speaker(session.door, agent, environment, p)
        dialogues = run_dialogues(sample.instances, sample.scenario, speak, session.journal, f"mile {agent_name}")
        turns, dialogue_rows = sample.tables(dialogues, RunLabel(rid, agent_name, "mile"))
        write_table(turns, run_dir / TURNS, Turns, table="mile_turns")
        write_table(dialogue_rows, run_dir / DIALOGUES, MileDialogues, table="mile_dialogues")
    write_run_json(run_dir, spec)
    ended = dialogue_rows.ended_by.fillna("-").value_counts().sort_index()
    publish_table(
        f"mile-simulate-{agent_name}",
        [{"ended by": str(k), "dialogues": int(v)} for k, v in ended.items()]
        + [{"ended by": "client revisions (total)", "dialogues": int(dialogue_rows.client_revisions.sum())}],
        f"MILE complaint-drafting dialogues of {agent_name} ({agent.model}"
        f"{', scripted' if agent.is_scripted else ''}); run {rid}",
    )
    check_calls(params, run_dir / USAGE)
    return _summary(agent_name, agent, dialogue_rows, session, rid)


def _summary(name: str, agent: ModelConfig, d: pd.DataFrame, session: ModelSession, rid: str) -> str:
    ended = d.ended_by.value_counts().to_dict()
    return (
        f"{name} ({agent.model}): {len(d)} dialogues ({ended.get('marker', 0)} ended by the lawyer, "
        f"{ended.get('max_turns', 0)} at the turn cap, {ended.get('empty_reply', 0)} by a lawyer who said "
        f"nothing, {ended.get('call_failed', 0)} failed), "
        f"{int(d.client_revisions.sum())} client revisions, {session.calls:,} calls "
        f"({session.hits:,} from the cache); run {rid}"
    )


if __name__ == "__main__":
    main(mile_simulate)

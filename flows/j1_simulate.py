"""Stage `j1_simulate` (one per agent): every instance's dialogue between the agent and the environment roles.

dvc.yaml → this flow → steps.j1.envs.registry (the J1 scenarios and their instances) → steps.simulate (the
engine, many dialogues at once through steps.llm, resumable from the run's journal) →
steps.j1.envs.common.stages (court-stage hints). Writes data/j1/runs/<agent>/{turns,dialogues,usage}.parquet and
run.json: the dialogues as they went, no evaluation (stage `j1_judge` parses the deliverables, finds the failure
causes and writes the transcripts). The journal is .cache/journals/j1/<agent>/<run id>.jsonl: a rerun takes
finished dialogues from it and replays the calls of unfinished ones, so an interrupted run resumes without redoing
work and writes the same tables.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter
from pathlib import Path

import pandas as pd

import steps
from flows.kit.config import PARAMS_FILE, Params, load_params
from flows.kit.models import check_calls, model_session
from flows.kit.monitor import follow_groups, publish_table
from flows.kit.paths import DIALOGUES, PATHS, TURNS, USAGE, Paths
from flows.kit.progress import counter
from flows.kit.stage import main, stage_flow
from steps.j1.envs.common.stages import court_stages
from steps.j1.envs.registry import SCENARIOS, environments, select_instances
from steps.j1.envs.schemas import Instances
from steps.j1.params import J1Params
from steps.runs import begin_run, run_spec, write_run_json
from steps.schemas import Dialogues, Turns
from steps.simulate.instance import Instance
from steps.simulate.records import RunLabel, run_tables
from steps.simulate.runner import DoorSpeaker
from steps.simulate.runner import simulate as run_all
from steps.tables import read_table, write_table

_STEPS = Path(steps.__file__).parent
# The code that decides a dialogue: the engine, the environments (their registrations load their instance
# builders, hence the personas package), the model door, the schemas and what the stage's modules import from
# elsewhere under steps/ (tests/test_stage_deps.py checks that this covers all of it).
CODE = (
    _STEPS / "__init__.py",
    _STEPS / "sections.py",
    _STEPS / "j1",
    _STEPS / "simulate",
    _STEPS / "scenarios",
    _STEPS / "personas",
    _STEPS / "llm",
    _STEPS / "schemas",
    _STEPS / "sources" / "__init__.py",
    _STEPS / "sources" / "errors.py",
)


def code_fingerprint(roots: tuple[Path, ...] = CODE) -> str:
    """A hash of the code and templates that decide a dialogue (`CODE`): editing any of them is a new run."""
    digest = hashlib.sha256()
    for root in roots:
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in (p for p in files if p.suffix in (".py", ".j2", ".yaml")):
            digest.update(path.relative_to(_STEPS).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def spec_of(params: Params, agent_name: str) -> dict:
    simulate_params = params.section(J1Params).simulate
    env = params.environment_model()
    endpoint = env.api_base if isinstance(env.api_base, str) else None  # replicas are interchangeable: left out
    return run_spec(
        params.agent(agent_name),
        "j1",
        environment=env.model,
        environment_endpoint=endpoint,
        environment_decoding=env.decoding.model_dump(),
        scenarios={c: SCENARIOS[c].version for c in sorted(simulate_params.scenarios)},
        max_turns={
            c: simulate_params.max_turns.get(c, SCENARIOS[c].ending.max_turns)
            for c in sorted(simulate_params.scenarios)
        },
        code=code_fingerprint(),
        **({} if (limit := params.limit_for(agent_name, "j1")) is None else {"limit": limit}),
    )


def load_instances(params: Params, paths: Paths = PATHS, limit: int | None = None) -> list[Instance]:
    """The instances of the configured scenarios, in id order; with `limit`, the first N of each scenario."""
    frame = read_table(paths.shared("j1") / "instances.parquet", Instances)
    return select_instances(frame, params.section(J1Params).simulate, limit)


def run_dialogues(
    instances: list[Instance], params: Params, agent_name: str, rid: str, run_dir: Path, journal: Path
) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """Every dialogue (journal first), then the run's turns and dialogues tables (its usage table is written when
    the model session ends) and the calls answered from the cache. The environments run together in one
    engine call; in Prefect each has a task run that ends with its last dialogue."""
    simulate_params = params.section(J1Params).simulate
    names = {code: env.name for code, env in environments().items()}  # task-run names in Prefect
    label_of = {i.instance_id: f"{i.scenario} {names.get(i.scenario, '')}".strip() for i in instances}
    sizes = Counter(label_of[i.instance_id] for i in instances)
    with (
        model_session(params, rid, usage=run_dir / USAGE, journal=journal) as session,
        counter(f"simulate {agent_name}", len(instances)) as advance,
    ):
        agent, environment = params.agent(agent_name), params.environment_model()
        speak = DoorSpeaker(session.door, agent, environment, policy_version=code_fingerprint())
        resume = session.journal
        assert resume is not None  # the session was given the journal's path

        def work(done):
            def on_done(dialogue) -> None:
                advance()
                done(label_of[dialogue.instance_id])

            return run_all(
                instances,
                lambda i: SCENARIOS[i.scenario],
                speak,
                resume,
                max_concurrent=simulate_params.concurrency,
                on_done=on_done,
            )

        dialogues = asyncio.run(follow_groups(dict(sizes), work))
    turns, rows = run_tables(
        sorted(dialogues, key=lambda d: d.instance_id),
        SCENARIOS.__getitem__,
        RunLabel(rid, agent_name, "j1"),
        annotate=lambda scenario, turns: {"stage": court_stages(scenario, turns)},
    )
    return turns, rows, session.hits


def _headline(deliverables: pd.DataFrame, turns: pd.DataFrame) -> list[dict]:
    """Per environment: dialogues, how they ended, turns."""
    per = pd.crosstab(deliverables.scenario, deliverables.ended_by.fillna("-"))
    n_turns = turns.groupby("scenario").size() if "scenario" in turns else pd.Series(dtype=int)
    return [
        {
            "environment": str(env),
            "dialogues": int(row.sum()),
            **{f"ended by {k}": int(v) for k, v in row.items()},
            "turns": int(n_turns.get(env, 0)),
        }
        for env, row in per.iterrows()
    ]


@stage_flow
def j1_simulate(agent_name: str, params_file: Path = PARAMS_FILE, paths: Paths = PATHS) -> str:
    """Every instance's dialogue between one agent and the environment roles; resumes an interrupted run."""
    params = load_params(params_file)
    simulate_params = params.section(J1Params).simulate
    unknown = set(simulate_params.scenarios) - set(SCENARIOS)
    if unknown:
        raise ValueError(f"j1.simulate.scenarios: unknown {sorted(unknown)}; known: {', '.join(SCENARIOS)}")
    agent = params.agent(agent_name)
    instances = load_instances(params, paths, params.limit_for(agent_name, "j1"))
    run_dir = paths.run("j1", agent_name)
    spec = spec_of(params, agent_name)
    rid = begin_run(run_dir, spec)
    journal = paths.journal("j1", agent_name, rid)
    turns, dialogues, hits = run_dialogues(instances, params, agent_name, rid, run_dir, journal)
    write_table(turns, run_dir / TURNS, Turns, table="turns")
    valid = write_table(dialogues, run_dir / DIALOGUES, Dialogues, table="dialogues")
    write_run_json(run_dir, spec)  # last: run.json never stands beside another run's outputs
    publish_table(
        f"j1-simulate-{agent_name}",
        _headline(valid, turns),
        f"J1 dialogues of {agent_name} ({agent.model}{', scripted' if agent.is_scripted else ''}) per "
        f"environment: how they ended, turns; run {rid}",
    )
    check_calls(params, run_dir / USAGE)
    ended = valid.ended_by.value_counts()
    per = ", ".join(
        f"{s} {n}"
        for s, n in valid.scenario.value_counts().reindex(simulate_params.scenarios).dropna().astype(int).items()
    )
    return (
        f"{agent_name} ({agent.model}): {len(valid):,} dialogues done ({per}), 0 skipped, "
        f"{ended.get('call_failed', 0)} failed (call failed); {len(turns):,} turns, {hits:,} calls from the "
        f"cache; run {rid}"
    )


if __name__ == "__main__":
    main(j1_simulate)

"""J1-EVAL's stage bodies (declared in steps/j1/benchmark.py): each agent's dialogues and the report; the scores'
(the judge) are in steps/j1/eval/judge_stages.py, so that the dialogues import no judge code (a changed judge reruns
only the judge and the report). Each takes its `StageContext` and returns its one-line summary.

- `simulate` (per agent): every instance's dialogue between the agent and the environment roles
  (steps.j1.envs.registry's scenarios through the steps.simulate engine, court-stage hints from
  steps.j1.envs.common.stages); writes data/j1/runs/<agent>/{turns,dialogues,usage}.parquet and run.json, the
  dialogues as they went. The journal .cache/journals/j1/<agent>/<run id>.jsonl gives a rerun the finished
  dialogues and replays the calls of unfinished ones, so an interrupted run resumes and writes the same tables.
- `report`: reports/j1.md, reports/j1.csv and the DVC views from every agent's scores, dialogues and failure
  causes (steps/j1/eval/sql via steps.j1.eval.tables, rendered by steps.j1.eval.report).
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pandas as pd

import steps
from steps.j1.envs.registry import SCENARIOS
from steps.j1.envs.schemas import Instances
from steps.j1.params import J1Params
from steps.params import Params
from steps.paths import DIALOGUES, TURNS, USAGE, Paths, safe_child
from steps.reports.agents import AgentInfo
from steps.runs import run_spec
from steps.schemas import Dialogues, Turns
from steps.simulate.instance import Instance
from steps.simulate.records import context_limit_keys
from steps.stages import StageContext

_STEPS = Path(steps.__file__).parent
# The code that decides a dialogue: the engine, the environments (with their instance builders and personas), the
# model door, the schemas and what they import from elsewhere under steps/.
CODE = (
    _STEPS / "__init__.py",
    _STEPS / "sections.py",
    _STEPS / "j1",
    _STEPS / "simulate",
    _STEPS / "llm",
    _STEPS / "schemas",
    _STEPS / "sources" / "__init__.py",
    _STEPS / "sources" / "errors.py",
)


# ------------------------------------------------------------------ simulate
def code_fingerprint(roots: tuple[Path, ...] = CODE) -> str:
    """A hash of the code and templates that decide a dialogue (`CODE`, but J1's judge part: steps/code.py, as
    dvc.yaml leaves it out of the stage's deps): editing any of them is a new run."""
    from steps.code import judge_part

    judging = judge_part("j1")
    digest = hashlib.sha256()
    for root in roots:
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        kept = (p for p in files if not any(p.resolve().is_relative_to(j) for j in judging))
        for path in (p for p in kept if p.suffix in (".py", ".j2", ".yaml")):
            digest.update(path.relative_to(_STEPS).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def spec_of(params: Params, agent_name: str, size: int | None = None) -> dict:
    simulate_params = params.section(J1Params).simulate
    env = params.environment_model("j1")
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
        protocol_record=params.run_protocol("j1", size, ("environment",)),
        **({} if (limit := params.limit_for(agent_name, "j1")) is None else {"limit": limit}),
    )


def load_instances(ctx: StageContext, limit: int | None = None) -> list[Instance]:
    """The instances of the configured scenarios, in id order; with `limit`, the first N of each scenario."""
    from steps.j1.envs.registry import select_instances

    frame = ctx.read_table(ctx.paths.shared("j1") / "instances.parquet", Instances)
    return select_instances(frame, ctx.params.section(J1Params).simulate, limit)


def run_dialogues(
    ctx: StageContext, instances: list[Instance], rid: str, run_dir: Path, journal: Path
) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """Every dialogue (journal first), then the run's turns and dialogues tables (its usage table is written when
    the model session ends) and the calls answered from the cache. The environments run together in one engine
    call; each is a unit of the monitor that ends with its last dialogue."""
    from steps.j1.envs.common.stages import court_stages
    from steps.j1.envs.registry import environments
    from steps.simulate.records import RunLabel, run_tables
    from steps.simulate.runner import DoorSpeaker
    from steps.simulate.runner import simulate as run_all

    assert ctx.agent_name is not None
    params, agent_name = ctx.params, ctx.agent_name
    simulate_params = params.section(J1Params).simulate
    names = {code: env.name for code, env in environments().items()}  # the monitor's unit names
    label_of = {i.instance_id: f"{i.scenario} {names.get(i.scenario, '')}".strip() for i in instances}
    sizes = Counter(label_of[i.instance_id] for i in instances)
    with (
        ctx.model_session(rid, usage=run_dir / USAGE, journal=journal) as session,
        ctx.counter(f"simulate {agent_name}", len(instances)) as advance,
    ):
        agent, environment = params.agent(agent_name), params.environment_model("j1")
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

        dialogues = asyncio.run(ctx.follow_groups(dict(sizes), work, label_of))
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


def simulate(ctx: StageContext) -> str:
    """Every instance's dialogue between one agent and the environment roles; resumes an interrupted run."""
    assert ctx.agent_name is not None
    params, paths, agent_name = ctx.params, ctx.paths, ctx.agent_name
    simulate_params = params.section(J1Params).simulate
    unknown = set(simulate_params.scenarios) - set(SCENARIOS)
    if unknown:
        raise ValueError(f"j1.simulate.scenarios: unknown {sorted(unknown)}; known: {', '.join(SCENARIOS)}")
    agent = params.agent(agent_name)
    instances = load_instances(ctx, params.limit_for(agent_name, "j1"))
    run_dir = paths.run("j1", agent_name)
    spec = spec_of(params, agent_name, len(instances))
    rid = ctx.begin_run(run_dir, spec)
    journal = paths.journal("j1", agent_name, rid)
    turns, dialogues, hits = run_dialogues(ctx, instances, rid, run_dir, journal)
    ctx.write_table(turns, run_dir / TURNS, Turns, table="turns")
    valid = ctx.write_table(dialogues, run_dir / DIALOGUES, Dialogues, table="dialogues")
    ctx.write_run_json(run_dir, spec)  # last: run.json never stands beside another run's outputs
    ctx.publish_table(
        f"j1-simulate-{agent_name}",
        _headline(valid, turns),
        f"J1 dialogues of {agent_name} ({agent.model}{', scripted' if agent.is_scripted else ''}) per "
        f"environment: how they ended, turns; run {rid}",
    )
    ctx.check_calls(run_dir / USAGE, limits=context_limit_keys(turns, valid))
    ended = valid.ended_by.value_counts()
    per = ", ".join(
        f"{s} {n}"
        for s, n in valid.scenario.value_counts().reindex(simulate_params.scenarios).dropna().astype(int).items()
    )
    return (
        f"{agent_name} ({agent.model}): {len(valid):,} dialogues done ({per}), 0 skipped, "
        f"{ended.get('context_exceeded', 0)} at the agent's context limit, {ended.get('call_failed', 0)} failed "
        f"(call failed); {len(turns):,} turns, {hits:,} calls from the "
        f"cache; run {rid}"
    )


# ------------------------------------------------------------------ transcripts (written by the judge)
def _safe(instance_id: str) -> str:
    return re.sub(r"[^\w.-]+", "_", instance_id)


def write_transcripts(
    ctx: StageContext,
    turns: pd.DataFrame,
    deliverables: pd.DataFrame,
    transcripts_dir: Path,
    per_scenario: int,
    *,
    agent: str,
    rid: str,
    proxy: bool,
) -> int:
    """reports/transcripts/<agent>/<instance>.md for the first `per_scenario` instances of each scenario (rows of
    dialogues.parquet with their `failure_causes`); the agent's earlier transcripts are removed first, only
    from its own folder inside `transcripts_dir`."""
    from steps.simulate.transcript import lines, markdown

    out_dir = safe_child(transcripts_dir, agent)
    folder = ctx.output_path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.md"):
        if old.is_file() and not old.is_symlink():
            old.unlink()
    chosen = deliverables.groupby("scenario", sort=False).head(per_scenario)
    for row in chosen.to_dict("records"):
        labels = {r: s.label or r for r, s in SCENARIOS[row["scenario"]].roles.items()}
        rows = turns[turns.instance_id == row["instance_id"]].to_dict("records")
        page = markdown(row["instance_id"], row, lines(rows, labels), agent=agent, run_id=rid, proxy=proxy)
        ctx.write_text(out_dir / f"{_safe(row['instance_id'])}.md", page + "\n")
    return len(chosen)


# ------------------------------------------------------------------ report
def j1_agents(params: Params, dialogues: pd.DataFrame, paths: Paths) -> dict[str, AgentInfo]:
    """Each agent: its model, the paper model it corresponds to (`agents.<name>.paper_model`, else
    `j1.eval.paper_names` or a matching name), its run's limit and how many instances it ran per environment."""
    from steps.j1.eval.paper import paper_names
    from steps.reports.runs import agent_infos

    counts: dict[str, dict[str, int]] = {}
    for (agent, scenario), n in dialogues.groupby(["agent", "scenario"]).instance_id.nunique().items():
        counts.setdefault(agent, {})[scenario] = int(n)
    explicit = params.section(J1Params).eval.paper_names
    agents = agent_infos(params, "j1", paths, names=paper_names(), explicit=explicit, section="j1.eval.paper_names")
    return {name: replace(a, sizes=counts.get(name, {})) for name, a in agents.items()}


def _agents_table(params: Params) -> pd.DataFrame:
    """The agents as the J1 tables take them: agent, model, agent_scripted, environment_scripted."""
    return pd.DataFrame(
        {
            "agent": list(params.agents),
            "model": [e.model for e in params.agents.values()],
            "agent_scripted": [params.agent(a).is_scripted for a in params.agents],
            "environment_scripted": params.environment_model("j1").is_scripted,
        }
    )


def _judged_run(ctx: StageContext, run_dir: Path, name: str, repeat: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One judged run's scores and its dialogues with their failure causes (`repeat`: which of the agent's runs)."""
    from steps.j1.eval.schemas import FailureCauses, J1Scores
    from steps.reports.repeats import repeat_file

    scored = ctx.read_table(repeat_file(ctx.exists, run_dir / "scores.parquet", repeat), J1Scores)
    causes = ctx.read_table(run_dir / "failure_causes.parquet", FailureCauses)[["instance_id", "failure_causes"]]
    ran = ctx.read_table(run_dir / DIALOGUES, Dialogues)
    if set(causes.instance_id) != set(ran.instance_id):
        raise ValueError(
            f"{run_dir}/failure_causes.parquet does not cover the run's dialogues: rerun the "
            f"judge stage (dvc repro j1_judge@{name})"
        )
    return scored, ran.merge(causes, on="instance_id")


def _tables(scores: pd.DataFrame, dialogues: pd.DataFrame, params: Params):
    from steps.j1.eval.tables import compute

    agents = _agents_table(params)
    members = [(g, a) for g, agents_ in params.section(J1Params).eval.repeats.items() for a in agents_]
    groups = pd.DataFrame(members, columns=["group", "agent"]).astype(str)
    return compute(scores, dialogues, agents, groups)


def report(ctx: StageContext) -> str:
    """The J1-EVAL tables of every agent taking part, with the paper's numbers beside them."""
    from steps.j1.benchmark import BENCHMARK
    from steps.j1.envs.provenance import provenance
    from steps.j1.eval.intervals import item_scores_of, repeats_cells
    from steps.j1.eval.report import csv_frame, groups, headline, render
    from steps.reports.agents import labelled_rows, with_stand_ins
    from steps.reports.dvc_views import write_dvc_views
    from steps.reports.long import long_csv
    from steps.reports.runs import run_info
    from steps.stats.cells import attach_intervals, cell_intervals

    params, paths = ctx.params.for_benchmark("j1"), ctx.paths  # the agents that take part in it
    if not params.agents:
        raise ValueError("params.yaml lists no agents: nothing to report")
    scores, dialogues, reports = [], [], paths.reports
    for name in params.agents:
        scored, ran = _judged_run(ctx, paths.run("j1", name), name)
        scores.append(scored)
        dialogues.append(ran)
    all_dialogues = pd.concat(dialogues, ignore_index=True)
    agents = j1_agents(params, all_dialogues, paths)
    for name, scored in zip(agents, scores, strict=True):
        stale = set(scored.run_id) - {agents[name].run_id}
        if stale:
            raise ValueError(
                f"{paths.run('j1', name)}/scores.parquet is from run {sorted(stale)[0]}, not {agents[name].run_id}: "
                f"rerun the judge stage (dvc repro j1_judge@{name})"
            )
    results = ctx.task(_tables, name="tables")(pd.concat(scores, ignore_index=True), all_dialogues, params)
    options = params.section(J1Params).eval.model_dump()
    repeated = [n for n in params.agents if params.repeats(n) > 1]
    runs: dict[str, list[tuple[pd.DataFrame, pd.DataFrame]]] = {}
    if repeated:  # each repeated agent's runs: a repeats group under its name (Tables 11-12 layout)
        from steps.j1.eval.tables import agent_repeats

        first = dict(zip(params.agents, zip(scores, dialogues, strict=True), strict=True))
        runs = {
            n: [first[n], *(_judged_run(ctx, paths.repeat_run("j1", n, i), n, i) for i in range(1, params.repeats(n)))]
            for n in repeated
        }
        rows, members = ctx.task(agent_repeats, name="repeats")(runs, _agents_table(params))
        results = replace(results, repeats=pd.concat([results.repeats, rows], ignore_index=True))
        options = {**options, "repeats": {**options["repeats"], **members}}
    run = run_info(params, "j1", options)
    cells = ctx.task(cell_intervals, name="intervals")(item_scores_of(pd.concat(scores, ignore_index=True)))
    # each repeats group's cells: the interval over its runs, with the run-to-run variance (Tables 11-12 rows)
    grouped = ctx.task(repeats_cells, name="repeats_intervals")(
        cells, {n: [s for s, _ in r] for n, r in runs.items()}, groups(run)
    )
    # the twin, with our rows' standard errors and 95 % intervals; the Markdown labels rows from it
    frame = attach_intervals(
        labelled_rows(csv_frame(results, agents, run), agents), pd.concat([cells, grouped], ignore_index=True)
    )
    agents = with_stand_ins(agents, frame)
    instances = ctx.read_table(paths.shared("j1") / "instances.parquet", Instances)
    markdown = render(results, agents, run, provenance(instances), intervals=cells, repeat_intervals=grouped)
    ctx.write_text(reports / "j1.md", markdown)
    twin = long_csv(frame, table="reports/j1.csv", with_unparsable=True, with_limit=True, with_intervals=True)
    ctx.write_text(reports / "j1.csv", twin)
    ctx.publish_markdown(
        "report-j1", markdown, "J1-EVAL: the ten metrics per environment (J1 Table 3 layout) and Tables 6-10"
    )
    overall = ", ".join(f"{a} {v}" for a, v in headline(results).items()) or "none"
    write_dvc_views(BENCHMARK, ctx.input_path(reports / "j1.csv"), list(params.agents), ctx.output_path(reports))
    table3 = results.cells[results.cells.component == ""]
    failed, failed_calls = int(table3.n_judge_failed.sum()), int(table3.n_failed.sum())
    paper = sum(a.paper_model is not None for a in agents.values())
    return (
        f"reports/j1.md and reports/j1.csv written ({len(agents)} agents, {len(groups(run))} repeats groups, "
        f"{paper} with the paper's rows; Overall (as in Table 3): {overall}; {failed} judge failures left out; "
        f"{failed_calls} instance-cells with failed calls; "
        f"judge {run.judge})"
    )

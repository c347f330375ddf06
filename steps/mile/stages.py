"""MILE / MASER's stage bodies (declared in steps/mile/benchmark.py): each agent's complaint-drafting dialogues and
the report; the scores' (the judge) are in steps/mile/judge_stages.py, so that the dialogues import no judge code (a
changed judge reruns only the judge and the report). Each takes its `StageContext` and returns its one-line summary.

- `simulate`: the agent plays the lawyer; the `environment` model plays the client and the supervisor, each role
  with its own decoding (`mile.role_decoding`, steps/mile/decoding.py; run.json records the effective decoding per
  role). Writes <run>/{turns,dialogues,usage}.parquet and run.json. The journal
  (.cache/journals/mile/<agent>/<run id>.jsonl, outside the DVC outputs) lets an interrupted run resume.
- `report`: reports/mile.md (MASER Tables 1-3 with the paper's numbers), its CSV twin and the DVC views, from every
  agent's scores and dialogues (steps/mile/sql/mile_*.sql).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import replace

import duckdb
import pandas as pd

from steps.llm import ModelConfig
from steps.mile.params import MileParams
from steps.mile.schemas import MileDialogues, MileScores
from steps.mile.sources import Mile
from steps.paths import DIALOGUES, TURNS, USAGE
from steps.runs import run_spec
from steps.schemas import Turns
from steps.simulate import Dialogue
from steps.simulate.records import RunLabel, context_limit_keys
from steps.stages import ModelSession, StageContext
from steps.tables import batches

JUDGE_RUN = "judge"  # <run>/judge/run.json: the judge's model, decoding and protocol record

BATCH = 20  # dialogues per unit the monitor shows


# ------------------------------------------------------------------ simulate
def spec_of(agent: ModelConfig, environment: ModelConfig, p: MileParams) -> dict:
    """What changes the dialogues: the agent, the environment model and the effective decoding of each of its
    roles (`roles`; the lawyer's is the agent's `decoding`), the protocol options and the sample."""
    from steps.mile.scenario import mile_scenario, protocol_version

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
            **(
                {
                    "role_models": {
                        r: {"model": m.model, "decoding": m.decoding.model_dump()}
                        for r, m in p.role_configs(environment).items()
                        if r in p.role_models
                    }
                }
                if p.role_models
                else {}
            ),
        },
        scenario_version=mile_scenario().version,
        protocol=protocol_version(),
        options=p.dialogue_options(),
        sample=p.sample,
    )


def _dialogues(ctx: StageContext, instances, scenario, speak, journal, label: str) -> list[Dialogue]:
    """Every dialogue in one engine call; each batch of BATCH dialogues is a unit of the monitor that ends with its
    last dialogue."""
    from steps.simulate.runner import simulate as run_engine

    batch_of = batches([i.instance_id for i in instances], BATCH)
    with ctx.counter(label, len(instances)) as advance:

        def work(done):
            def on_done(dialogue: Dialogue) -> None:
                advance()
                done(batch_of[dialogue.instance_id])

            return run_engine(instances, lambda _: scenario, speak, journal, on_done=on_done)

        return asyncio.run(ctx.follow_groups(dict(Counter(batch_of.values())), work, batch_of))


def simulate(ctx: StageContext) -> str:
    """Run one agent as the lawyer on the MILE sample; resumes an interrupted run."""
    import steps.mile.oracle  # registers the scripted oracle lawyer
    import steps.mile.scripted  # noqa: F401  (registers the scripted client and supervisor)
    from steps.mile.run import mile_sample, mile_speaker

    assert ctx.agent_name is not None
    agent_name, params, paths = ctx.agent_name, ctx.params, ctx.paths
    agent, environment = params.agent(agent_name), params.environment_model("mile")
    mile = ctx.read_table(paths.interim / "mile.parquet", Mile)
    p = params.section(MileParams)
    limit = params.limit_for(agent_name, "mile")  # the agent's own cap: the first N instances of the sample
    sample = mile_sample(mile, p, limit)
    run_dir = paths.run("mile", agent_name)
    spec = spec_of(agent, environment, p) | ({} if limit is None else {"limit": limit})
    spec["protocol_record"] = params.run_protocol("mile", len(sample.instances), ("environment",))
    rid = ctx.begin_run(run_dir, spec)
    journal = paths.journal("mile", agent_name, rid)
    with ctx.model_session(rid, usage=run_dir / USAGE, journal=journal) as session:
        speak = mile_speaker(session.door, agent, environment, p)
        dialogues = _dialogues(ctx, sample.instances, sample.scenario, speak, session.journal, f"mile {agent_name}")
        turns, dialogue_rows = sample.tables(dialogues, RunLabel(rid, agent_name, "mile"))
        ctx.write_table(turns, run_dir / TURNS, Turns, table="mile_turns")
        ctx.write_table(dialogue_rows, run_dir / DIALOGUES, MileDialogues, table="mile_dialogues")
    ctx.write_run_json(run_dir, spec)
    ended = dialogue_rows.ended_by.fillna("-").value_counts().sort_index()
    ctx.publish_table(
        f"mile-simulate-{agent_name}",
        [{"ended by": str(k), "dialogues": int(v)} for k, v in ended.items()]
        + [{"ended by": "client revisions (total)", "dialogues": int(dialogue_rows.client_revisions.sum())}],
        f"MILE complaint-drafting dialogues of {agent_name} ({agent.model}"
        f"{', scripted' if agent.is_scripted else ''}); run {rid}",
    )
    ctx.check_calls(run_dir / USAGE, limits=context_limit_keys(turns, dialogue_rows))
    return _simulate_summary(agent_name, agent, dialogue_rows, session, rid)


def _simulate_summary(name: str, agent: ModelConfig, d: pd.DataFrame, session: ModelSession, rid: str) -> str:
    ended = d.ended_by.value_counts().to_dict()
    return (
        f"{name} ({agent.model}): {len(d)} dialogues ({ended.get('marker', 0)} ended by the lawyer, "
        f"{ended.get('max_turns', 0)} at the turn cap, {ended.get('empty_reply', 0)} by a lawyer who said "
        f"nothing, {ended.get('context_exceeded', 0)} at the lawyer's context limit, "
        f"{ended.get('call_failed', 0)} failed), "
        f"{int(d.client_revisions.sum())} client revisions, {session.calls:,} calls "
        f"({session.hits:,} from the cache); run {rid}"
    )


# ------------------------------------------------------------------ report
QUERIES = ("mile_goal", "mile_interaction", "mile_consistency", "mile_rounds", "mile_dialogues")
DIALOGUE_COLUMNS = [
    "agent",
    "instance_id",
    "law_reason",
    "ended_by",
    "turns",
    "client_revisions",
    "lawyer_revisions",
    "blurred",
    "unsupervised",
]


def result_rows(scores: pd.DataFrame, dialogues: pd.DataFrame, agents: pd.DataFrame) -> pd.DataFrame:
    """Our rows of every table (steps/mile/sql/mile_*.sql over every agent's scores and dialogues)."""
    from steps.mile.sql import QUERIES as SQL

    with duckdb.connect() as con:
        con.register("scores", scores)
        con.register("dialogues", dialogues)
        con.register("agents", agents)
        ours = pd.concat([SQL.run(con, q) for q in QUERIES], ignore_index=True)
        con.register("ours", ours)
        return pd.concat([ours, SQL.run(con, "mile_total")], ignore_index=True)


def report(ctx: StageContext) -> str:
    """The paper-style MILE tables of every agent taking part, with the paper's numbers."""
    from steps.mile.benchmark import BENCHMARK
    from steps.mile.intervals import item_scores_of
    from steps.mile.published import paper_names
    from steps.mile.report import csv_frame, render
    from steps.reports.agents import labelled_rows, with_stand_ins
    from steps.reports.dvc_views import write_dvc_views
    from steps.reports.labels import size_phrase
    from steps.reports.long import long_csv
    from steps.reports.repeats import (
        SD_TABLE,
        mean_over_repeats,
        passes,
        repeat_file,
        repeated_cells,
        repeats_markdown,
        run_of,
    )
    from steps.reports.runs import agent_infos, run_info
    from steps.stats.cells import attach_intervals, cell_intervals

    params, paths = ctx.params.for_benchmark("mile"), ctx.paths  # the agents that take part in it
    reports = paths.reports
    agents = agent_infos(params, "mile", paths, names=paper_names())
    if not agents:
        raise ValueError("params.yaml lists no agents: nothing to report")
    repeats = {name: params.repeats(name) for name in agents}  # docs/statistics.md#repeated-runs
    passes_ours, all_cells = [], []
    for index in range(passes(repeats)):  # once per repeat of the repeated agents (once without repeats)
        scores, dialogues = [], []
        for name in agents:
            repeat = run_of(repeats, name, index)
            run_dir = paths.repeat_run("mile", name, repeat)
            scores.append(ctx.read_table(repeat_file(ctx.exists, run_dir / "scores.parquet", repeat), MileScores))
            dialogues.append(ctx.read_table(run_dir / DIALOGUES, MileDialogues)[DIALOGUE_COLUMNS])
            if index == 0:
                agents[name] = replace(agents[name], sizes={"dialogues": len(dialogues[-1])})
        if index == 0:
            first = next(iter(agents.values()))
            run = run_info(params, "mile", {**first.run["options"], **params.section(MileParams).model_dump()})
            flags = pd.DataFrame(
                {
                    "agent": list(agents),
                    "model": [a.model for a in agents.values()],
                    "agent_scripted": [a.scripted for a in agents.values()],
                    "environment_scripted": run.environment_scripted,
                }
            )
            counts = [len(d) for d in dialogues]
        all_scores, all_dialogues = pd.concat(scores, ignore_index=True), pd.concat(dialogues, ignore_index=True)
        rows = ctx.task(result_rows, name="result_rows")(all_scores, all_dialogues, flags)
        passes_ours.append(rows.assign(source="ours"))
        all_cells.append(ctx.task(cell_intervals, name="intervals")(item_scores_of(all_scores, all_dialogues)))
    # each repeated agent's numbers the mean over its runs, with a repeats_sd row beside each
    ours = mean_over_repeats(passes_ours, repeats, counts=("n_failed_calls", "n_unparsable")).drop(columns="source")
    cells = repeated_cells(all_cells, repeats)
    sampled_from = len(ctx.read_table(paths.interim / "mile.parquet", Mile))
    # the twin, with our rows' intervals; the Markdown labels its rows from it
    frame = attach_intervals(labelled_rows(csv_frame(ours), agents), cells)
    ours = ours.merge(cells[["agent", "table", "scope", "metric", "ci_low", "ci_high"]], how="left")
    agents = with_stand_ins(agents, frame)
    markdown = render(ours[ours["table"] != SD_TABLE], agents, run, sampled_from)
    headlines = [(h.table, h.scope, h.metric) for h in BENCHMARK.headlines]
    if extra := repeats_markdown(frame, repeats, headlines, benchmark="mile"):
        markdown = markdown.rstrip("\n") + "\n\n" + extra
    ctx.write_text(reports / "mile.md", markdown)
    twin = long_csv(frame, table="reports/mile.csv", with_unparsable=True, with_limit=True, with_intervals=True)
    ctx.write_text(reports / "mile.csv", twin)
    ctx.publish_markdown(
        "report-mile", markdown, "MILE goal and interaction scores (MASER Tables 1-3), ours beside the paper's"
    )
    write_dvc_views(BENCHMARK, ctx.input_path(reports / "mile.csv"), list(params.agents), ctx.output_path(reports))
    goal = ours[(ours["table"] == "goal") & (ours.metric == "AVE")].set_index("agent").value.round(2).to_dict()
    return (
        f"reports/mile.md and reports/mile.csv written ({len(agents)} agents, "
        f"{size_phrase(counts, 'dialogues per agent')}; "
        f"goal AVE {goal}; judge {run.judge})"
    )

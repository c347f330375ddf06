"""UCL-Bench's stage bodies (declared in steps/ucl/benchmark.py): the reference's and each agent's consultations
and the report; the judge's is in steps/ucl/judge_stages.py (so that the consultations import no judge code:
a changed judge reruns only the judge and the report). Each takes its `StageContext` and returns its summary.

- `reference` / `simulate`: the simulated user consults the reference model / one agent on every item; writes
  <run>/{turns,dialogues,usage}.parquet and run.json. An interrupted run resumes from its journal
  (.cache/journals/ucl/<agent or reference>/<run id>.jsonl, outside the DVC outputs), removed once the tables are
  written; a rerun replays the response cache.
- `report`: reports/ucl.md, its CSV twin and the DVC views, from every agent's verdicts (steps/ucl/sql/ucl_long.sql).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from steps.llm import Completer, ModelConfig
from steps.paths import DIALOGUES, TURNS, USAGE
from steps.runs import read_run, run_spec
from steps.schemas import Turns
from steps.simulate.journal import Journal
from steps.simulate.records import RunLabel, context_limit_keys
from steps.stages import StageContext
from steps.tables import table_rows
from steps.ucl.dialogues import ucl_tables
from steps.ucl.instances import build_instances, limit_items
from steps.ucl.params import UclParams, reference_model
from steps.ucl.prompts import PromptSource, prompt_record, runs_label
from steps.ucl.scenario import UCL, scenario_for
from steps.ucl.schemas import UclDialogues, UclHintScores, UclVerdicts
from steps.ucl.sources import Ucl
from steps.ucl.tasks import task_of
from steps.ucl.version import protocol_version

JUDGE_RUN = "judge"  # <run>/judge/run.json: the judge run's identity


# ------------------------------------------------------------------ consultations (reference and agents)
def reference(ctx: StageContext) -> str:
    """The simulated user consults the reference model on every item (`ucl.limit` applies)."""
    ucl = ctx.params.section(UclParams)
    model = reference_model(ctx.params)
    return _consult(ctx, model, "reference", ctx.paths.reference("ucl"), "reference", ucl.limit)


def simulate(ctx: StageContext) -> str:
    """The simulated user consults one agent on every item (the agent's own limit applies)."""
    assert ctx.agent_name is not None
    agent = ctx.params.agent(ctx.agent_name)
    limit = ctx.params.limit_for(ctx.agent_name, "ucl")
    return _consult(ctx, agent, "agent", ctx.paths.run("ucl", ctx.agent_name), ctx.agent_name, limit)


def _converse(
    ctx: StageContext,
    items: pd.DataFrame,
    assistant: ModelConfig,
    user: ModelConfig,
    exchanges: int,
    door: Completer,
    journal: Journal,
    rid: str,
    prompts: PromptSource,
) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """Every dialogue in one engine call; each UCL task is a unit of the monitor that ends with its last one."""
    import steps.ucl.scripted  # noqa: F401  (registers the scripted UCL user, oracle and proxy judge)
    from steps.ucl.simulation import simulate_dialogues

    instances = build_instances(items, max_exchanges=exchanges, prompts=prompts)
    resumed = sum(journal.finished(i) is not None for i in instances)
    label_of = {i: f"{task_of(k).id} {task_of(k).name}" for i, k in zip(items.item_id, items.task, strict=True)}
    with ctx.counter(f"ucl {assistant.name}", len(instances)) as advance:

        def work(done):
            def on_done(dialogue) -> None:
                advance()
                done(label_of[dialogue.instance_id])

            return simulate_dialogues(
                door, assistant, user, instances, journal, on_done=on_done, scenario=scenario_for(prompts)
            )

        dialogues = asyncio.run(ctx.follow_groups(dict(Counter(label_of.values())), work, label_of))
    turns, rows = ucl_tables(dialogues, RunLabel(rid, assistant.name, "ucl"))
    return turns, rows, resumed


def _consult(
    ctx: StageContext, assistant: ModelConfig, role: str, run_dir: Path, journal_name: str, limit: int | None
) -> str:
    """The simulated user consults `assistant` (`role`: agent or reference) on every item; returns the summary."""
    ucl, user = ctx.params.section(UclParams), ctx.params.environment_model("ucl")
    items = limit_items(ctx.read_table(ctx.paths.interim / "ucl.parquet", Ucl), limit, ucl.tasks)
    spec = run_spec(
        assistant,
        "ucl",
        role=role,
        scenario_version=UCL.version,
        protocol=protocol_version(),
        user={"model": user.model, "decoding": user.decoding.model_dump()},
        max_exchanges=ucl.exchanges(),
        single_round=ucl.single_round,
        limit=limit,
        prompts=prompt_record(ucl.prompts, items, ("user", "assistant")),
        **({"tasks": ucl.tasks} if ucl.tasks else {}),
        protocol_record=ctx.params.run_protocol(
            "ucl", len(items), ("environment", "reference") if role == "reference" else ("environment",)
        ),
    )
    rid = ctx.begin_run(run_dir, spec)
    journal = ctx.paths.journal("ucl", journal_name, rid)
    with ctx.model_session(rid, usage=run_dir / USAGE, journal=journal) as session:
        assert session.journal is not None
        turns, dialogues, resumed = _converse(
            ctx, items, assistant, user, ucl.exchanges(), session.door, session.journal, rid, ucl.prompts
        )
        ctx.write_table(turns, run_dir / TURNS, Turns, table="ucl_turns")
        ctx.write_table(dialogues, run_dir / DIALOGUES, UclDialogues, table="ucl_dialogues")
    ctx.write_run_json(run_dir, spec)
    ctx.output_path(journal).unlink(missing_ok=True)  # the tables are written: nothing left to resume
    per_task = (
        dialogues.groupby("task", sort=True)
        .agg(
            dialogues=("instance_id", "size"),
            mean_rounds=("rounds", "mean"),
            ended_by_user=("ended_by", lambda e: int((e == "marker").sum())),
            at_cap=("ended_by", lambda e: int((e == "max_turns").sum())),
            at_context_limit=("ended_by", lambda e: int((e == "context_exceeded").sum())),
            failed=("failure", lambda f: int(f.notna().sum())),
        )
        .reset_index()
    )
    ctx.publish_table(
        f"ucl-simulate-{assistant.name}",
        table_rows(per_task),
        f"UCL-Bench dialogues of {assistant.name} ({assistant.model}"
        f"{', scripted' if assistant.is_scripted else ''}) per task; run {rid}",
    )
    ctx.check_calls(run_dir / USAGE, limits=context_limit_keys(turns, dialogues))
    failed = int(dialogues.failure.notna().sum())
    ended = dialogues.ended_by.value_counts().to_dict()
    who = f"{assistant.name} ({assistant.model})" + ("" if role == "agent" else ", the reference")
    at_limit = f", {n} at the assistant's context limit" if (n := ended.get("context_exceeded", 0)) else ""
    return (
        f"{who}: {len(dialogues):,} dialogues over {dialogues.task.nunique()} tasks, "
        f"mean {dialogues.rounds[dialogues.failure.isna()].mean():.2f} rounds "
        f"({ended.get('marker', 0)} ended by the user, {ended.get('max_turns', 0)} at the cap of "
        f"{ucl.exchanges()}, {ended.get('empty_reply', 0)} by an assistant who said nothing{at_limit}), "
        f"{resumed} resumed from the journal, {session.hits:,} calls from the cache, "
        f"{failed} failed; run {rid}"
    )


# ------------------------------------------------------------------ report
def _items_per_task(dialogues: pd.DataFrame) -> dict[str, int]:
    """task -> the items of it a run answered (its rows' `n` is the most of one task)."""
    return {str(t): int(n) for t, n in dialogues.groupby("task").instance_id.nunique().items()}


def _prompt_source(spec: Mapping[str, Any]) -> str | None:
    """The prompt source a run recorded in its run.json (None: a run from before prompts were recorded)."""
    record = spec.get("prompts")
    return str(record["source"]) if isinstance(record, Mapping) and "source" in record else None


def report(ctx: StageContext) -> str:
    """The paper-style UCL-Bench tables of every agent taking part against the reference."""
    from steps.reports.agents import labelled_rows, with_stand_ins
    from steps.reports.dvc_views import write_dvc_views
    from steps.reports.long import long_csv
    from steps.reports.repeats import mean_over_repeats, passes, repeat_file, repeated_cells, repeats_markdown, run_of
    from steps.reports.runs import agent_infos, model_info, run_info
    from steps.sources import load_manifest
    from steps.stats.cells import attach_intervals, cell_intervals
    from steps.ucl.benchmark import BENCHMARK
    from steps.ucl.intervals import item_scores_of
    from steps.ucl.paper import paper_long, paper_models, paper_names
    from steps.ucl.report import ReportInfo, headline_text, note_figures, render
    from steps.ucl.tables import agent_flags, long_table

    params, paths = ctx.params.for_benchmark("ucl"), ctx.paths  # the agents that take part in it
    ucl = params.section(UclParams)
    judge_model, user = params.judge_model("ucl"), params.environment_model("ucl")
    reference = reference_model(params)
    infos = agent_infos(params, "ucl", paths, names=paper_names())
    repeats = {name: params.repeats(name) for name in infos}  # each agent's runs (docs/statistics.md#repeated-runs)
    reference_dir = paths.reference("ucl")
    reference_dialogues = ctx.read_table(reference_dir / DIALOGUES, UclDialogues)
    ref_run = replace(
        model_info(reference.name, reference, [reference_dir], protocol=(params, "ucl")),
        sizes=_items_per_task(reference_dialogues),
    )
    source = ctx.read_table(paths.interim / "ucl.parquet", Ucl)
    items = limit_items(source, ucl.limit, ucl.tasks)
    longs, all_cells = [], []
    for index in range(passes(repeats)):  # once per repeat of the repeated agents (once without repeats)
        verdicts, hints, dialogues = [], [], []
        for name in infos:
            repeat = run_of(repeats, name, index)
            run_dir = paths.repeat_run("ucl", name, repeat)
            dialogues.append(ctx.read_table(repeat_file(ctx.exists, run_dir / DIALOGUES, repeat), UclDialogues))
            if index == 0:
                infos[name] = replace(infos[name], sizes=_items_per_task(dialogues[-1]))
            verdicts.append(ctx.read_table(run_dir / "verdicts.parquet", UclVerdicts))
            hints.append(ctx.read_table(run_dir / "hint_scores.parquet", UclHintScores))
        runs = list(infos.values())
        matches = {a.name: p for a in runs for p in paper_models() if p.name == a.paper_model}
        dialogues.append(reference_dialogues)
        agents = agent_flags(
            runs,
            ref_run,
            judge_model.model,
            user_scripted=user.is_scripted,
            judge_scripted=judge_model.is_scripted,
        )
        pass_verdicts = pd.concat(verdicts, ignore_index=True)
        pass_dialogues = pd.concat(dialogues, ignore_index=True)
        longs.append(
            ctx.task(long_table, name="build_long")(
                {
                    "verdicts": pass_verdicts,
                    "hint_scores": pd.concat(hints, ignore_index=True),
                    "dialogues": pass_dialogues,
                    "paper": paper_long(matches),
                    "agents": agents,
                }
            )
        )
        all_hints = pd.concat(hints, ignore_index=True)
        all_cells.append(
            ctx.task(cell_intervals, name="intervals")(item_scores_of(pass_verdicts, all_hints, pass_dialogues))
        )
        if index == 0:
            all_verdicts, all_dialogues = pass_verdicts, pass_dialogues
    long = mean_over_repeats(longs, repeats)
    cells = repeated_cells(all_cells, repeats)
    long = attach_intervals(long, cells)  # our rows' standard errors and 95 % intervals
    everyone = {**{r.name: r for r in runs}, ref_run.name: ref_run}
    long = labelled_rows(long, everyone)  # the twin; the Markdown labels its rows from the same rows
    everyone = with_stand_ins(everyone, long)
    runs, ref_run = [everyone[r.name] for r in runs], everyone[ref_run.name]
    prompts = {r.name: _prompt_source(r.run) for r in runs}
    prompts |= {f"{r.name} judge": _prompt_source(read_run(paths.run("ucl", r.name) / JUDGE_RUN).spec) for r in runs}
    prompts[ref_run.name] = _prompt_source(ref_run.run)
    commit = next(f.commit for f in load_manifest(Path("sources.yaml")).files if f.dataset == "ucl")
    info = ReportInfo(
        agents=runs,
        reference=ref_run,
        run=run_info(params, "ucl", {**ucl.model_dump(), "exchanges": ucl.exchanges()}),
        items_per_task=int(source.groupby("task").size().max()),  # in the data, unlimited
        data=f"killerqueen-wonder/UCL-bench@{commit[:10]}",
        notes=note_figures(items, all_verdicts, all_dialogues),
        prompts=runs_label(prompts),
    )
    markdown = render(long, info)
    headline_cells = [(h.table, h.scope, h.metric) for h in BENCHMARK.headlines]  # and each task's win rate
    scopes = sorted(set(long.scope[long.table == "win_rate"]) - {"overall"})
    headline_cells += [("win_rate", t, "win_rate") for t in scopes]
    if extra := repeats_markdown(long, repeats, headline_cells, benchmark="ucl"):
        markdown = markdown.rstrip("\n") + "\n\n" + extra
    ctx.write_text(paths.reports / "ucl.md", markdown)
    twin = long_csv(
        long, table="reports/ucl.csv", digits=10, with_unparsable=True, with_limit=True, with_intervals=True
    )
    ctx.write_text(paths.reports / "ucl.csv", twin)
    ctx.publish_markdown("report-ucl", markdown, "UCL-Bench win rates against the reference model (Table 3 layout)")
    summary = "; ".join(f"{r.name}: {headline_text(long, r.name)}" for r in runs)
    write_dvc_views(BENCHMARK, paths.reports / "ucl.csv", list(params.agents), paths.reports)
    return (
        f"reports/ucl.md and reports/ucl.csv written ({len(long):,} long rows; {len(runs)} agents vs "
        f"{ref_run.name}; {summary or 'no agent'})"
    )

"""Stage `ucl_report`: the paper-style UCL-Bench tables (reports/ucl.md) and their long-format CSV twin.

dvc.yaml → this flow → steps/sql/ucl_long.sql (DuckDB) → steps.ucl.report. Reads every configured agent's
verdicts, hint scores and dialogues, the reference's dialogues, and the paper's Table 3.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from prefect import task
from prefect.cache_policies import NO_CACHE

from flows.dvc_views import write_dvc_views
from flows.kit.config import MANIFEST_FILE, PARAMS_FILE, Params, load_params
from flows.kit.monitor import publish_report
from flows.kit.paths import DIALOGUES, PATHS, Paths
from flows.kit.runs import read_run
from flows.kit.stage import main, stage_flow
from flows.kit.tables import read_table, write_text_atomic
from steps.reports.labels import agent_paper_model
from steps.reports.paper_models import paper_names
from steps.schemas import Ucl, UclDialogues, UclHintScores, UclVerdicts
from steps.sources import load_manifest
from steps.ucl.instances import limit_items
from steps.ucl.paper import match, paper_long, paper_models
from steps.ucl.params import UclParams
from steps.ucl.report import ReportInfo, RunInfo, headline_text, render
from steps.ucl.tables import long_table


def _items_per_task(dialogues: pd.DataFrame) -> int:
    """The most items of one task a run answered: the `n` of its rows."""
    return int(dialogues.groupby("task").item_id.nunique().max()) if len(dialogues) else 0


@task(cache_policy=NO_CACHE)
def build_long(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    return long_table(tables)


def _notes(params: Params, items: pd.DataFrame, verdicts: pd.DataFrame, dialogues: pd.DataFrame) -> list[str]:
    no_hints = items[items.evaluation_hints.str.strip() == ""]
    notes = [
        f"{len(no_hints)} item(s) have no answer guidance in the public data (task(s) "
        f"{', '.join(sorted(set(no_hints.task)))}): the pairwise judge is told so and judges on legal "
        "correctness; their hint score is the holistic one (flagged `hint_free` in hint_scores.parquet).",
    ]
    for agent, rows in verdicts[verdicts.failure.notna()].groupby("agent"):
        reasons = ", ".join(f"{k} {v}" for k, v in rows.failure.value_counts().sort_index().items())
        notes.append(f"Agent `{agent}`: {len(rows)} verdict(s) excluded ({reasons}).")
    closing = dialogues[dialogues.closing_extra.notna()]
    if len(closing):
        notes.append(
            f"{len(closing)} closing user message(s) held words besides 咨询结束; as in the paper they "
            "are not in the judged transcript (kept in dialogues.parquet `closing_extra`)."
        )
    notes.append(
        "Verdicts: the last [[d]] of the answer counts (spaces inside the brackets are tolerated, "
        "unlike the paper's strict regex; a line naming all three verdicts lists the options and is not "
        "read); the prompts (user, judge) are ours, in Chinese; the agent "
        "gets the task's own model prompt from the data as its system message."
    )
    if params.section(UclParams).single_round:
        notes.append(
            "Single-round variant: the user asks once and is not asked again (not the paper's "
            "protocol); the reference ran in the same mode."
        )
    return notes


@stage_flow
def ucl_report(params_file: Path = PARAMS_FILE, paths: Paths = PATHS) -> str:
    """The paper-style UCL-Bench tables of every agent taking part against the reference."""
    params = load_params(params_file).for_benchmark("ucl")  # the agents that take part in it
    ucl = params.section(UclParams)
    judge, user = params.judge_model(), params.environment_model()
    reference = ucl.reference.resolve_reference()
    runs, verdicts, hints, dialogues, matches = [], [], [], [], {}
    for name in params.agents:
        model, run_dir = params.agent(name), paths.run("ucl", name)
        named = agent_paper_model(name, params.agents[name].paper_model, "ucl", paper_names("ucl"))
        paper = next(p for p in paper_models() if p.name == named) if named else match(name, model.model)
        if paper is not None:
            matches[name] = paper
        dialogues.append(read_table(run_dir / DIALOGUES, UclDialogues))
        run = read_run(run_dir)
        runs.append(
            RunInfo(
                name,
                model.model,
                model.is_scripted,
                run.run_id,
                paper.name if paper else None,
                _items_per_task(dialogues[-1]),
                run.limit,
            )
        )
        verdicts.append(read_table(run_dir / "verdicts.parquet", UclVerdicts))
        hints.append(read_table(run_dir / "hint_scores.parquet", UclHintScores))
    reference_run = read_run(paths.reference("ucl"))
    dialogues.append(read_table(paths.reference("ucl") / DIALOGUES, UclDialogues))
    ref_run = RunInfo(
        reference.name,
        reference.model,
        reference.is_scripted,
        reference_run.run_id,
        items_per_task=_items_per_task(dialogues[-1]),
        limit=reference_run.limit,
    )
    scripted_env = user.is_scripted or judge.is_scripted or reference.is_scripted
    agents = pd.DataFrame(
        [{"agent": r.name, "role": "agent", "judge": judge.model, "proxy": r.scripted or scripted_env} for r in runs]
        + [
            {
                "agent": ref_run.name,
                "role": "reference",
                "judge": judge.model,
                "proxy": ref_run.scripted or user.is_scripted,
            }
        ]
    )
    items = limit_items(read_table(paths.interim / "ucl.parquet", Ucl), ucl.limit, ucl.tasks)
    all_verdicts = pd.concat(verdicts, ignore_index=True)
    all_dialogues = pd.concat(dialogues, ignore_index=True)
    long: pd.DataFrame = build_long(
        {
            "verdicts": all_verdicts,
            "hint_scores": pd.concat(hints, ignore_index=True),
            "dialogues": all_dialogues,
            "paper": paper_long(matches),
            "agents": agents,
        }
    )
    commit = next(f.commit for f in load_manifest(MANIFEST_FILE).files if f.dataset == "ucl")
    info = ReportInfo(
        agents=runs,
        reference=ref_run,
        user=user.model,
        judge=judge.model,
        judge_scripted=judge.is_scripted,
        exchanges=ucl.exchanges(),
        single_round=ucl.single_round,
        # in the data, unlimited
        items_per_task=int(read_table(paths.interim / "ucl.parquet", Ucl).groupby("task").size().max()),
        retries=ucl.judge_retries,
        pointwise=ucl.pointwise,
        data=f"killerqueen-wonder/UCL-bench@{commit[:10]}",
        notes=_notes(params, items, all_verdicts, all_dialogues),
    )
    write_text_atomic(paths.reports / "ucl.md", render(long, info))
    csv = long.assign(value=long.value.round(10)).to_csv(index=False, lineterminator="\n")
    write_text_atomic(paths.reports / "ucl.csv", csv)
    publish_report(paths.reports / "ucl.md", "UCL-Bench win rates against the reference model (Table 3 layout)")
    summary = "; ".join(f"{r.name}: {headline_text(long, r.name)}" for r in runs)
    write_dvc_views("ucl", paths.reports / "ucl.csv", list(params.agents), paths.reports)
    return (
        f"reports/ucl.md and reports/ucl.csv written ({len(long):,} long rows; {len(runs)} agents vs "
        f"{ref_run.name}; {summary or 'no agent'})"
    )


if __name__ == "__main__":
    main(ucl_report)

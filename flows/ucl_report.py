"""Stage `ucl_report`: the paper-style UCL-Bench tables (reports/ucl.md) and their long-format CSV twin.

dvc.yaml → this flow → steps/ucl/sql/ucl_long.sql (DuckDB) → steps.ucl.report. Reads every configured agent's
verdicts, hint scores and dialogues, the reference's dialogues, and the paper's Table 3.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
from prefect import task
from prefect.cache_policies import NO_CACHE

from flows.kit.config import MANIFEST_FILE, PARAMS_FILE, load_params
from flows.kit.monitor import publish_report
from flows.kit.paths import DIALOGUES, PATHS, Paths
from flows.kit.stage import main, stage_flow
from steps.reports.dvc_views import write_dvc_views
from steps.reports.long import long_csv
from steps.reports.runs import agent_infos, model_info, run_info
from steps.sources import load_manifest
from steps.tables import read_table, write_text_atomic
from steps.ucl.benchmark import BENCHMARK
from steps.ucl.instances import limit_items
from steps.ucl.paper import paper_long, paper_models, paper_names
from steps.ucl.params import UclParams
from steps.ucl.report import ReportInfo, headline_text, note_figures, render
from steps.ucl.schemas import UclDialogues, UclHintScores, UclVerdicts
from steps.ucl.sources import Ucl
from steps.ucl.tables import long_table


def _items_per_task(dialogues: pd.DataFrame) -> dict[str, int]:
    """task -> the items of it a run answered (its rows' `n` is the most of one task)."""
    return {str(t): int(n) for t, n in dialogues.groupby("task").instance_id.nunique().items()}


@task(cache_policy=NO_CACHE)
def build_long(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    return long_table(tables)


@stage_flow
def ucl_report(params_file: Path = PARAMS_FILE, paths: Paths = PATHS) -> str:
    """The paper-style UCL-Bench tables of every agent taking part against the reference."""
    params = load_params(params_file).for_benchmark("ucl")  # the agents that take part in it
    ucl = params.section(UclParams)
    judge, user = params.judge_model(), params.environment_model()
    reference = ucl.reference.resolve_reference()
    verdicts, hints, dialogues = [], [], []
    infos = agent_infos(params, "ucl", paths, names=paper_names())
    for name in infos:
        run_dir = paths.run("ucl", name)
        dialogues.append(read_table(run_dir / DIALOGUES, UclDialogues))
        infos[name] = replace(infos[name], sizes=_items_per_task(dialogues[-1]))
        verdicts.append(read_table(run_dir / "verdicts.parquet", UclVerdicts))
        hints.append(read_table(run_dir / "hint_scores.parquet", UclHintScores))
    runs = list(infos.values())
    matches = {a.name: p for a in runs for p in paper_models() if p.name == a.paper_model}
    reference_dir = paths.reference("ucl")
    dialogues.append(read_table(reference_dir / DIALOGUES, UclDialogues))
    ref_run = replace(model_info(reference.name, reference, [reference_dir]), sizes=_items_per_task(dialogues[-1]))
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
        run=run_info(params, {**ucl.model_dump(), "exchanges": ucl.exchanges()}),
        # in the data, unlimited
        items_per_task=int(read_table(paths.interim / "ucl.parquet", Ucl).groupby("task").size().max()),
        data=f"killerqueen-wonder/UCL-bench@{commit[:10]}",
        notes=note_figures(items, all_verdicts, all_dialogues),
    )
    write_text_atomic(paths.reports / "ucl.md", render(long, info))
    csv = long_csv(long, table="reports/ucl.csv", digits=10, with_unparsable=True)
    write_text_atomic(paths.reports / "ucl.csv", csv)
    publish_report(paths.reports / "ucl.md", "UCL-Bench win rates against the reference model (Table 3 layout)")
    summary = "; ".join(f"{r.name}: {headline_text(long, r.name)}" for r in runs)
    write_dvc_views(BENCHMARK, paths.reports / "ucl.csv", list(params.agents), paths.reports)
    return (
        f"reports/ucl.md and reports/ucl.csv written ({len(long):,} long rows; {len(runs)} agents vs "
        f"{ref_run.name}; {summary or 'no agent'})"
    )


if __name__ == "__main__":
    main(ucl_report)

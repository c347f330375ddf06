"""Stage `j1_report`: the J1-EVAL tables of every agent's scores, with the paper's numbers beside them.

dvc.yaml → this flow → steps/sql/j1_*.sql (DuckDB over every agent's scores.parquet, dialogues.parquet and
failure_causes.parquet, via steps.j1.eval.tables) → steps.j1.eval.report (Markdown and the long CSV). Writes
reports/j1.md and reports/j1.csv.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
from prefect import task
from prefect.cache_policies import NO_CACHE

from flows.kit.config import PARAMS_FILE, Params, load_params
from flows.kit.monitor import publish_report
from flows.kit.paths import DIALOGUES, PATHS, Paths
from flows.kit.stage import main, stage_flow
from steps.j1.benchmark import BENCHMARK
from steps.j1.eval.paper import paper_names
from steps.j1.eval.report import csv_frame, groups, headline, render
from steps.j1.eval.schemas import FailureCauses, J1Scores
from steps.j1.eval.tables import Results, compute
from steps.j1.params import J1Params
from steps.reports.agents import AgentInfo
from steps.reports.dvc_views import write_dvc_views
from steps.reports.long import long_csv
from steps.reports.runs import agent_infos, run_info
from steps.schemas import Dialogues
from steps.tables import read_table, write_text_atomic


def j1_agents(params: Params, dialogues: pd.DataFrame, paths: Paths) -> dict[str, AgentInfo]:
    """Each agent: its model, the paper model it corresponds to (`agents.<name>.paper_model`, else
    `j1.eval.paper_names` or a matching name), its run's limit and how many instances it ran per environment."""
    counts: dict[str, dict[str, int]] = {}
    for (agent, scenario), n in dialogues.groupby(["agent", "scenario"]).instance_id.nunique().items():
        counts.setdefault(agent, {})[scenario] = int(n)
    explicit = params.section(J1Params).eval.paper_names
    agents = agent_infos(params, "j1", paths, names=paper_names(), explicit=explicit, section="j1.eval.paper_names")
    return {name: replace(a, sizes=counts.get(name, {})) for name, a in agents.items()}


@task(cache_policy=NO_CACHE)
def tables(scores: pd.DataFrame, dialogues: pd.DataFrame, params: Params) -> Results:
    agents = pd.DataFrame(
        {
            "agent": list(params.agents),
            "model": [e.model for e in params.agents.values()],
            "agent_scripted": [params.agent(a).is_scripted for a in params.agents],
            "environment_scripted": params.environment_model().is_scripted,
        }
    )
    members = [(g, a) for g, agents_ in params.section(J1Params).eval.repeats.items() for a in agents_]
    groups = pd.DataFrame(members, columns=["group", "agent"]).astype(str)
    return compute(scores, dialogues, agents, groups)


@stage_flow
def j1_report(params_file: Path = PARAMS_FILE, paths: Paths = PATHS) -> str:
    """The J1-EVAL tables of every agent taking part, with the paper's numbers beside them."""
    params = load_params(params_file).for_benchmark("j1")  # the agents that take part in it
    if not params.agents:
        raise ValueError("params.yaml lists no agents: nothing to report")
    scores, dialogues, reports = [], [], paths.reports
    for name in params.agents:
        run_dir = paths.run("j1", name)
        scores.append(read_table(run_dir / "scores.parquet", J1Scores))
        causes = read_table(run_dir / "failure_causes.parquet", FailureCauses)[["instance_id", "failure_causes"]]
        ran = read_table(run_dir / DIALOGUES, Dialogues)
        if set(causes.instance_id) != set(ran.instance_id):
            raise ValueError(
                f"{run_dir}/failure_causes.parquet does not cover the run's dialogues: rerun the "
                f"judge stage (dvc repro j1_judge@{name})"
            )
        dialogues.append(ran.merge(causes, on="instance_id"))
    all_dialogues = pd.concat(dialogues, ignore_index=True)
    agents = j1_agents(params, all_dialogues, paths)
    for name, scored in zip(agents, scores, strict=True):
        stale = set(scored.run_id) - {agents[name].run_id}
        if stale:
            raise ValueError(
                f"{paths.run('j1', name)}/scores.parquet is from run {sorted(stale)[0]}, not {agents[name].run_id}: "
                f"rerun the judge stage (dvc repro j1_judge@{name})"
            )
    results = tables(pd.concat(scores, ignore_index=True), all_dialogues, params)
    run = run_info(params, params.section(J1Params).eval.model_dump())
    write_text_atomic(reports / "j1.md", render(results, agents, run))
    write_text_atomic(
        reports / "j1.csv", long_csv(csv_frame(results, agents, run), table="reports/j1.csv", with_unparsable=True)
    )
    publish_report(reports / "j1.md", "J1-EVAL: the ten metrics per environment (J1 Table 3 layout) and Tables 6-10")
    overall = ", ".join(f"{a} {v}" for a, v in headline(results).items()) or "none"
    write_dvc_views(BENCHMARK, reports / "j1.csv", list(params.agents), reports)
    table3 = results.cells[results.cells.component == ""]
    failed, failed_calls = int(table3.n_judge_failed.sum()), int(table3.n_failed.sum())
    paper = sum(a.paper_model is not None for a in agents.values())
    return (
        f"reports/j1.md and reports/j1.csv written ({len(agents)} agents, {len(groups(run))} repeats groups, "
        f"{paper} with the paper's rows; Overall (as in Table 3): {overall}; {failed} judge failures left out; "
        f"{failed_calls} instance-cells with failed calls; "
        f"judge {run.judge})"
    )


if __name__ == "__main__":
    main(j1_report)

"""Stage `j1_judge` (one per agent): every instance of the agent's J1 run scored on its scenario's metrics.

dvc.yaml → this flow → steps.j1.eval (cases from the run's tables; per scenario the rule metrics of
steps.j1.eval.metrics, which parse the deliverables, and the judges of steps.judges: pointwise comparison, the
two-pass procedure judge; the court failure causes, steps.j1.eval.failures) → writes
data/j1/runs/<agent>/scores.parquet (one row per instance, metric and component), failure_causes.parquet (one
row per dialogue), judge_usage.parquet, and reports/transcripts/<agent>/*.md (the first
`j1.simulate.transcripts` dialogues of each scenario, with their failure causes).
Judge calls go through the model door and its response cache, so a rerun makes no new calls and writes the
same table.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pandas as pd
from prefect import task
from prefect.cache_policies import NO_CACHE

import steps.j1.eval.scripted  # noqa: F401  (registers the proxy judge, scripted/judge, with J1's kinds)
from flows.kit.config import PARAMS_FILE, Params, load_params
from flows.kit.models import check_calls, model_session
from flows.kit.monitor import publish_table, table_rows
from flows.kit.paths import DIALOGUES, JUDGE_USAGE, PATHS, TURNS, Paths, safe_child
from flows.kit.progress import counter
from flows.kit.stage import main, stage_flow
from steps.j1.envs.registry import SCENARIOS
from steps.j1.envs.schemas import Instances
from steps.j1.eval.case import Case, Panel
from steps.j1.eval.evaluate import build_cases, evaluate_run, score_frame
from steps.j1.eval.failures import case_failure_causes, failure_frame
from steps.j1.eval.schemas import FAILURE_CAUSES_ARROW_TYPES, FailureCauses, J1Scores
from steps.j1.params import J1Params
from steps.runs import read_run
from steps.schemas import Dialogues, Turns
from steps.simulate.transcript import lines, markdown
from steps.tables import read_table, write_table, write_text_atomic


@task(cache_policy=NO_CACHE)
def score_cases(
    cases: list[Case], params: Params, agent_name: str, rid: str, run_dir: Path
) -> tuple[pd.DataFrame, int, int]:
    """Every case (judge calls concurrently through the door); returns the scores, calls made and cache hits."""
    evaluation = params.section(J1Params).eval
    with (
        model_session(params, rid, usage=run_dir / JUDGE_USAGE) as session,
        counter(f"judge {agent_name}", len(cases)) as advance,
    ):
        panel = Panel(session.door, params.judge_model(), evaluation.procedure)
        rows = asyncio.run(evaluate_run(cases, panel, evaluation, on_done=advance))
    return score_frame(rows, run_id=rid, agent=agent_name), session.calls, session.hits


def _safe(instance_id: str) -> str:
    return re.sub(r"[^\w.-]+", "_", instance_id)


@task(cache_policy=NO_CACHE)
def write_transcripts(
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
    out_dir = safe_child(transcripts_dir, agent)
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.md"):
        if old.is_file() and not old.is_symlink():
            old.unlink()
    chosen = deliverables.groupby("scenario", sort=False).head(per_scenario)
    for row in chosen.to_dict("records"):
        labels = {r: s.label or r for r, s in SCENARIOS[row["scenario"]].roles.items()}
        rows = turns[turns.instance_id == row["instance_id"]].to_dict("records")
        page = markdown(row["instance_id"], row, lines(rows, labels), agent=agent, run_id=rid, proxy=proxy)
        write_text_atomic(out_dir / f"{_safe(row['instance_id'])}.md", page + "\n")
    return len(chosen)


@stage_flow
def j1_judge(agent_name: str, params_file: Path = PARAMS_FILE, paths: Paths = PATHS) -> str:
    """Score one agent's J1 run on the ten metrics (rules and LLM judges), with the court failure causes."""
    params = load_params(params_file)
    params.agent(agent_name)  # an unknown agent is a clear error
    run_dir = paths.run("j1", agent_name)
    rid = read_run(run_dir).run_id
    instances = read_table(paths.shared("j1") / "instances.parquet", Instances)
    turns = read_table(run_dir / TURNS, Turns)
    deliverables = read_table(run_dir / DIALOGUES, Dialogues)
    cases = build_cases(instances, turns, deliverables)
    scores, calls, hits = score_cases(cases, params, agent_name, rid, run_dir)
    valid = write_table(scores, run_dir / "scores.parquet", J1Scores, table="j1_scores")
    head = valid[(valid.component == "") & (valid.status != "dialogue_failed")]
    per = (
        head.groupby(["scenario", "metric"], sort=False)
        .agg(
            mean=("value", "mean"),
            scored=("status", lambda s: int((s == "scored").sum())),
            values=("value", "size"),
            judge_failures=("status", lambda s: int((s == "judge_failed").sum())),
        )
        .reset_index()
    )
    judge_model = params.judge_model()
    publish_table(
        f"j1-judge-{agent_name}",
        table_rows(per),
        f"J1-EVAL metrics of {agent_name} per environment (mean over instances), judged by "
        f"{judge_model.model}{' (proxy)' if judge_model.is_scripted else ''}; run {rid}",
    )
    causes = failure_frame(
        {c.instance_id: (c.scenario, case_failure_causes(c)) for c in cases}, run_id=rid, agent=agent_name
    )
    causes = write_table(
        causes,
        run_dir / "failure_causes.parquet",
        FailureCauses,
        table="failure_causes",
        arrow_types=FAILURE_CAUSES_ARROW_TYPES,
    )
    proxy = params.agent(agent_name).is_scripted or params.environment_model().is_scripted
    shown = write_transcripts(
        turns,
        deliverables.merge(causes[["instance_id", "failure_causes"]], on="instance_id"),
        paths.reports / "transcripts",
        params.section(J1Params).simulate.transcripts,
        agent=agent_name,
        rid=rid,
        proxy=proxy,
    )
    check_calls(params, run_dir / JUDGE_USAGE, judged=[run_dir / "scores.parquet"])
    return summary(agent_name, params, valid, calls, hits, rid) + f"; {shown} transcripts"


def summary(agent_name: str, params: Params, scores: pd.DataFrame, calls: int, hits: int, rid: str) -> str:
    """One line: what was scored, skipped and failed."""
    head = scores[scores.component == ""]
    status = head.status.value_counts()
    per = ", ".join(f"{s} {n}" for s, n in scores.groupby("scenario", sort=False).instance_id.nunique().items())
    judge_model = params.judge_model()
    kind = " (proxy)" if judge_model.is_scripted else ""
    count = status.get
    return (
        f"{agent_name}: {scores.instance_id.nunique():,} instances ({per}), {len(head):,} metric values: "
        f"{count('scored', 0):,} scored, {count('failed_task', 0):,} failed tasks (scored as the paper's '-': "
        f"0, III-4 1), {count('skipped', 0):,} skipped (nothing to compare), {count('judge_failed', 0):,} judge "
        f"failures, {count('dialogue_failed', 0):,} from broken dialogues (excluded); {calls:,} judge calls "
        f"by {judge_model.model}{kind}, {hits:,} from the cache; run {rid}"
    )


if __name__ == "__main__":
    main(j1_judge)

"""J1-EVAL's judge stage body (declared in steps/j1/benchmark.py), apart from the dialogues
(steps/j1/eval/stages.py) so that only this stage imports the judge kernel (steps.judges) and J1's judges
(steps.j1.eval's metrics modules, templates/judge/): a changed judge or judge prompt reruns the judge and the
report, never the dialogues (flows/dvc_yaml.py).

- `judge` (per agent): every instance scored on its scenario's metrics (rules of steps.j1.eval.metrics, judges of
  steps.judges) with the court failure causes (steps.j1.eval.failures); writes <run>/{scores,failure_causes,
  judge_usage}.parquet and reports/transcripts/<agent>/*.md (the first `j1.simulate.transcripts` per scenario).
"""

from __future__ import annotations

import asyncio

import pandas as pd

from steps.j1.envs.schemas import Instances
from steps.j1.eval.stages import write_transcripts
from steps.j1.params import J1Params
from steps.params import Params
from steps.paths import DIALOGUES, JUDGE_USAGE, TURNS
from steps.runs import read_run
from steps.schemas import Dialogues, Turns
from steps.stages import StageContext
from steps.tables import table_rows


def judge(ctx: StageContext) -> str:
    """Score one agent's J1 run on the ten metrics (rules and LLM judges), with the court failure causes."""
    import steps.j1.eval.scripted  # noqa: F401  (registers the proxy judge, scripted/judge, with J1's kinds)
    from steps.j1.eval.case import Case, Panel
    from steps.j1.eval.evaluate import build_cases, evaluate_run, score_frame
    from steps.j1.eval.failures import case_failure_causes, failure_frame
    from steps.j1.eval.schemas import FAILURE_CAUSES_ARROW_TYPES, FailureCauses, J1Scores, J1ScoresPanel
    from steps.judges import scripted_contrary  # noqa: F401  (registers the contrary proxy judge, for panels)
    from steps.judges.panel import aggregate, asked_rows, panel_aggregation

    assert ctx.agent_name is not None
    params, paths, agent_name = ctx.params, ctx.paths, ctx.agent_name
    run_dir = paths.run("j1", agent_name)
    rid = read_run(ctx.input_path(run_dir)).run_id
    instances = ctx.read_table(paths.shared("j1") / "instances.parquet", Instances)
    turns = ctx.read_table(run_dir / TURNS, Turns)
    deliverables = ctx.read_table(run_dir / DIALOGUES, Dialogues)
    cases = build_cases(instances, turns, deliverables)

    judges = params.judge_panel("j1")  # a panel of judges: every member scores every case

    def score_cases(cases: list[Case]) -> tuple[pd.DataFrame, pd.DataFrame, int, int]:
        """Every case (judge calls concurrently through the door) by the judge, or by each member of the panel;
        the scores (the panel's aggregate), every member's rows, calls made and cache hits."""
        evaluation = params.section(J1Params).eval
        models = judges or [params.judge_model("j1")]
        with (
            ctx.model_session(rid, usage=run_dir / JUDGE_USAGE) as session,
            ctx.counter(f"judge {agent_name}", len(cases) * len(models)) as advance,
        ):
            frames = [
                score_frame(
                    asyncio.run(evaluate_run(cases, Panel(session.door, m, evaluation.procedure), evaluation, advance)),
                    run_id=rid,
                    agent=agent_name,
                )
                for m in models
            ]
        if judges is None:
            return frames[0], frames[0].iloc[0:0], session.calls, session.hits
        keys = ["instance_id", "metric", "component"]
        aggregation = panel_aggregation(params, "j1", pairwise=False)
        members = pd.concat(frames, ignore_index=True)
        return aggregate(members, keys, aggregation), asked_rows(members), session.calls, session.hits

    scores, members, calls, hits = ctx.task(score_cases, name="score_cases")(cases)
    valid = ctx.write_table(scores, run_dir / "scores.parquet", J1Scores, table="j1_scores")
    ctx.write_table(members, run_dir / "scores_panel.parquet", J1ScoresPanel, table="j1_scores_panel")
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
    judge_model = params.judge_model("j1")
    ctx.publish_table(
        f"j1-judge-{agent_name}",
        table_rows(per),
        f"J1-EVAL metrics of {agent_name} per environment (mean over instances), judged by "
        f"{judge_model.model}{' (proxy)' if judge_model.is_scripted else ''}; run {rid}",
    )
    causes = failure_frame(
        {c.instance_id: (c.scenario, case_failure_causes(c)) for c in cases}, run_id=rid, agent=agent_name
    )
    causes = ctx.write_table(
        causes,
        run_dir / "failure_causes.parquet",
        FailureCauses,
        table="failure_causes",
        arrow_types=FAILURE_CAUSES_ARROW_TYPES,
    )
    proxy = params.agent(agent_name).is_scripted or params.environment_model("j1").is_scripted
    shown = 0  # the transcripts are repeat 0's (a later repeat of the agent's run would overwrite them)
    if not params.repeat_of(agent_name):
        shown = ctx.task(write_transcripts, name="write_transcripts")(
            ctx,
            turns,
            deliverables.merge(causes[["instance_id", "failure_causes"]], on="instance_id"),
            paths.reports / "transcripts",
            params.section(J1Params).simulate.transcripts,
            agent=agent_name,
            rid=rid,
            proxy=proxy,
        )
    ctx.check_calls(run_dir / JUDGE_USAGE, judged=[run_dir / "scores.parquet"])
    return summary(agent_name, params, valid, calls, hits, rid) + f"; {shown} transcripts"


def summary(agent_name: str, params: Params, scores: pd.DataFrame, calls: int, hits: int, rid: str) -> str:
    """One line: what was scored, skipped and failed."""
    head = scores[scores.component == ""]
    status = head.status.value_counts()
    per = ", ".join(f"{s} {n}" for s, n in scores.groupby("scenario", sort=False).instance_id.nunique().items())
    judge_model = params.judge_model("j1")
    kind = " (proxy)" if judge_model.is_scripted else ""
    count = status.get
    return (
        f"{agent_name}: {scores.instance_id.nunique():,} instances ({per}), {len(head):,} metric values: "
        f"{count('scored', 0):,} scored, {count('failed_task', 0):,} failed tasks (scored as the paper's '-': "
        f"0, III-4 1), {count('skipped', 0):,} skipped (nothing to compare), {count('judge_failed', 0):,} judge "
        f"failures, {count('dialogue_failed', 0):,} from broken dialogues (excluded); {calls:,} judge calls "
        f"by {judge_model.model}{kind}, {hits:,} from the cache; run {rid}"
    )

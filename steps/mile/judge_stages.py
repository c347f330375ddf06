"""MILE / MASER's judge stage body (declared in steps/mile/benchmark.py), apart from the dialogues
(steps/mile/stages.py) so that only this stage imports the judge kernel (steps.judges) and reads the judge prompts
(templates/judge/): a changed judge or judge prompt reruns the judge and the report, never the dialogues
(flows/dvc_yaml.py).

- `judge`: goal, interaction and client-consistency scores (steps.mile.evaluate plans them, steps.mile.judging and
  steps.mile.matching score them); writes <run>/{scores,judge_usage}.parquet and judge/run.json (the judge model
  and decoding, and its protocol record: under `protocol: paper` the paper's max_tokens 50).
"""

from __future__ import annotations

import asyncio

import pandas as pd

from steps.judges.panel import judge_by_panel, panel_aggregation, panel_label, panel_spec, unit_keys
from steps.llm import Completer, ModelConfig
from steps.llm.capabilities import structured_spec
from steps.mile.params import MileParams
from steps.mile.schemas import MileDialogues, MileScores
from steps.mile.sources import Mile
from steps.mile.stages import JUDGE_RUN
from steps.paths import DIALOGUES, JUDGE_USAGE, TURNS
from steps.runs import read_run
from steps.schemas import Turns
from steps.stages import StageContext
from steps.tables import table_rows


# ------------------------------------------------------------------ judge
def judge(ctx: StageContext) -> str:
    """Goal, interaction and client-consistency scores of one agent's MILE run."""
    import steps.mile.proxy  # noqa: F401  (registers the proxy judge for MILE's judge kinds)
    from steps.judges import scripted_contrary  # noqa: F401  (registers the contrary proxy judge, for panels)
    from steps.judges.probes import PROBE_FILE, probe_frame
    from steps.mile.evaluate import Plan, plan_evaluation
    from steps.mile.judging import probe_tasks, run_tasks
    from steps.schemas.probes import JudgeProbes
    from steps.sections import JudgeProbeParams

    assert ctx.agent_name is not None
    agent_name, params, paths = ctx.agent_name, ctx.params, ctx.paths
    judge_model = params.judge_model("mile")
    run_dir = paths.run("mile", agent_name)
    rid = read_run(ctx.input_path(run_dir)).run_id
    turns = ctx.read_table(run_dir / TURNS, Turns)
    dialogues = ctx.read_table(run_dir / DIALOGUES, MileDialogues)
    mile = ctx.read_table(paths.interim / "mile.parquet", Mile)
    plan = plan_evaluation(mile, dialogues, turns, params.section(MileParams))
    # the judge's own record (<run>/judge/run.json): the judge model and decoding it asked with (under `protocol:
    # paper` the paper's max_tokens 50) beside the paper's; the score rows keep the dialogue run's id
    panel = params.judge_panel("mile")
    probes = params.section(MileParams).judge_probes
    aggregation = panel_aggregation(params, "mile", pairwise=False)
    judge_spec = {
        "agent_run": rid,
        "judge": judge_model.model,
        "decoding": judge_model.decoding.model_dump(),
        "protocol_record": params.run_protocol("mile", len(dialogues), ("judge",)),
        **structured_spec(judge_model, params.llm.cache_dir),
        **(panel_spec(panel, aggregation) if panel else {}),
        **({"judge_probes": probes.model_dump()} if panel is None and probes.sample and probes.repeats else {}),
    }
    ctx.begin_run(run_dir / JUDGE_RUN, judge_spec)

    def probe_grades(tasks: list, door: Completer, model: ModelConfig, probes: JudgeProbeParams) -> pd.DataFrame:
        return asyncio.run(probe_tasks(door, model, tasks, probes))

    def judge_all(plan: Plan, door: Completer, model: ModelConfig, label: str) -> list[dict]:
        with ctx.counter(label, len(plan.tasks)) as advance:
            return asyncio.run(run_tasks(door, model, plan.tasks, on_done=advance))

    columns = list(MileScores.to_schema().columns)
    with ctx.model_session(rid, usage=run_dir / JUDGE_USAGE) as session:
        if panel is None:
            judged = ctx.task(judge_all, name="judge")(plan, session.door, judge_model, f"mile judge {agent_name}")
            scores = pd.DataFrame(plan.rows + judged).assign(run_id=rid, agent=agent_name)[columns]
            members = pd.DataFrame(columns=columns)
        else:  # every member judges every task; their rows are kept, their aggregate is the score
            rules = pd.DataFrame(plan.rows).assign(run_id=rid, agent=agent_name)

            def one(model: ModelConfig) -> pd.DataFrame:
                rows = ctx.task(judge_all, name=f"judge {model.model}")(
                    plan, session.door, model, f"mile judge {agent_name} by {model.model}"
                )
                return pd.DataFrame(rows).assign(run_id=rid, agent=agent_name).reindex(columns=columns)

            judged_rows, members = judge_by_panel(panel, one, unit_keys(columns), aggregation)
            scores = pd.concat([rules.reindex(columns=columns), judged_rows], ignore_index=True)[columns]
        ctx.write_table(scores, run_dir / "scores.parquet", MileScores, table="mile_scores")
        ctx.write_table(members, run_dir / "scores_panel.parquet", MileScores, table="mile_scores_panel")
        # the judge probes: of one judge only (a panel's aggregate is no one judge's answer to re-ask)
        probed = (
            ctx.task(probe_grades, name="judge probes")(plan.tasks, session.door, judge_model, probes)
            if panel is None
            else probe_frame([])
        )
        ctx.write_table(probed, run_dir / PROBE_FILE, JudgeProbes, table="mile_judge_probes")
    ok = scores[scores.failure.isna()]
    per = ok.groupby(["stage", "metric"], sort=True).agg(mean=("value", "mean"), n=("value", "size")).reset_index()
    ctx.publish_table(
        f"mile-judge-{agent_name}",
        table_rows(per),
        f"MILE scores of {agent_name} (mean per metric), judged by {judge_model.model}"
        f"{' (proxy)' if judge_model.is_scripted else ''}; run {rid}",
    )
    ctx.check_calls(run_dir / JUDGE_USAGE, judged=[run_dir / "scores.parquet"])
    ctx.write_run_json(run_dir / JUDGE_RUN, judge_spec)
    failed = scores[scores.failure.notna() & (scores.failure != "dialogue_failed")]
    return (
        f"{agent_name}: {len(dialogues)} dialogues, {len(plan.tasks):,} judge calls by "
        f"{judge_model.model if panel is None else panel_label([m.model for m in panel], aggregation) + ' (each)'} "
        f"({session.hits:,} from the cache), {len(scores):,} score rows, {len(failed)} judge failures, "
        f"{int((scores.failure == 'dialogue_failed').sum())} rows of failed dialogues; run {rid}"
    )

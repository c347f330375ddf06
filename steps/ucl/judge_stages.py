"""UCL-Bench's judge stage body (declared in steps/ucl/benchmark.py), apart from the consultations
(steps/ucl/stages.py) so that only this stage imports the judge kernel (steps.judges) and reads the judge prompts
(templates/judge/): a changed judge or judge prompt reruns the judge and the report, never the dialogues
(flows/dvc_yaml.py).

- `judge`: one agent's dialogues against the reference's in both orders, and each dialogue scored against its own
  guidance (pointwise, ours); writes <run>/{verdicts,hint_scores,judge_usage}.parquet and judge/run.json.
"""

from __future__ import annotations

import pandas as pd

from steps.llm.capabilities import structured_spec
from steps.paths import DIALOGUES, JUDGE_USAGE
from steps.runs import read_run
from steps.stages import StageContext
from steps.tables import table_rows
from steps.ucl.instances import limit_items
from steps.ucl.params import UclParams
from steps.ucl.prompts import prompt_record
from steps.ucl.schemas import UclDialogues, UclHintScores, UclHintScoresPanel, UclVerdicts, UclVerdictsPanel
from steps.ucl.sources import Ucl
from steps.ucl.stages import JUDGE_RUN
from steps.ucl.version import protocol_version


def judge(ctx: StageContext) -> str:
    """Judge one agent's dialogues against the reference's in both orders, plus the hint scores."""
    import steps.ucl.scripted  # noqa: F401  (registers the scripted UCL proxy judge)
    from steps.judges import scripted_contrary  # noqa: F401  (registers the contrary proxy judge, for panels)
    from steps.judges.panel import aggregate, asked_rows, panel_aggregation, panel_label
    from steps.judges.probes import PROBE_FILE, probe_frame
    from steps.schemas.probes import JudgeProbes
    from steps.ucl.judging import RunIds, judge_run, panel_verdict, probe_hints
    from steps.ucl.report import headline_text
    from steps.ucl.tables import agent_long

    assert ctx.agent_name is not None
    agent_name, params, paths = ctx.agent_name, ctx.params, ctx.paths
    ucl = params.section(UclParams)
    run_dir, reference_dir = paths.run("ucl", agent_name), paths.reference("ucl")
    dialogues = ctx.read_table(run_dir / DIALOGUES, UclDialogues)
    reference_dialogues = ctx.read_table(reference_dir / DIALOGUES, UclDialogues)
    items = ctx.read_table(paths.interim / "ucl.parquet", Ucl)
    items = limit_items(items, params.limit_for(agent_name, "ucl"), ucl.tasks)
    judge_model = params.judge_model("ucl")
    panel = params.judge_panel("ucl")
    # the verdicts' and the hint scores' (a panel's `aggregate`, else majority and mean)
    aggregations = (panel_aggregation(params, "ucl", pairwise=True), panel_aggregation(params, "ucl", pairwise=False))
    ids = RunIds(
        agent_name,
        read_run(ctx.input_path(run_dir)).run_id,
        ucl.reference_name(),
        read_run(ctx.input_path(reference_dir)).run_id,
    )
    judge_spec = {
        "agent_run": ids.run_id,
        "reference_run": ids.reference_run_id,
        "judge": judge_model.model,
        "decoding": judge_model.decoding.model_dump(),
        "retries": ucl.judge_retries,
        "pointwise": ucl.pointwise,
        "protocol": protocol_version(),
        "prompts": prompt_record(ucl.prompts, items, ("judge", "hint_judge") if ucl.pointwise else ("judge",)),
        "protocol_record": params.run_protocol("ucl", len(items), ("judge",)),
        **structured_spec(judge_model, params.llm.cache_dir),
        **({"judge_probes": ucl.judge_probes.model_dump()} if ucl.pointwise and panel is None else {}),
        **({"panel": {"judges": [m.model for m in panel], "aggregate": list(aggregations)}} if panel else {}),
    }
    judge_run_id = ctx.begin_run(run_dir / JUDGE_RUN, judge_spec)
    with ctx.model_session(judge_run_id, usage=run_dir / JUDGE_USAGE) as session:

        def progress(total: int):
            return ctx.counter(f"ucl judge {ids.agent}", total)

        judged = ctx.task(judge_run, name="judge")
        if panel is None:
            verdicts, hints = judged(
                session.door, judge_model, ucl, items, dialogues, reference_dialogues, ids, progress=progress
            )
            verdict_members, hint_members = verdicts.iloc[0:0], hints.iloc[0:0]
        else:  # every member judges every pair and hint; their rows are kept, their aggregate is the verdict
            each = [
                judged(session.door, m, ucl, items, dialogues, reference_dialogues, ids, progress=progress)
                for m in panel
            ]
            verdict_members = pd.concat([v for v, _ in each], ignore_index=True)
            hint_members = pd.concat([h for _, h in each], ignore_index=True)
            verdicts = aggregate(verdict_members, ["item_id", "order"], aggregations[0], panel_verdict)
            hints = aggregate(hint_members, ["item_id"], aggregations[1])
            verdict_members, hint_members = asked_rows(verdict_members), asked_rows(hint_members)
        ctx.write_table(verdicts, run_dir / "verdicts.parquet", UclVerdicts, table="ucl_verdicts")
        ctx.write_table(hints, run_dir / "hint_scores.parquet", UclHintScores, table="ucl_hint_scores")
        ctx.write_table(
            verdict_members, run_dir / "verdicts_panel.parquet", UclVerdictsPanel, table="ucl_verdicts_panel"
        )
        ctx.write_table(
            hint_members, run_dir / "hint_scores_panel.parquet", UclHintScoresPanel, table="ucl_hint_scores_panel"
        )
        # the judge probes: of one judge only (a panel's aggregate is no one judge's answer to re-ask)
        probed = panel is None
        probes = (
            ctx.task(probe_hints, name="judge probes")(session.door, judge_model, ucl, items, dialogues, hints)
            if probed
            else probe_frame([])
        )
        ctx.write_table(probes, run_dir / PROBE_FILE, JudgeProbes, table="ucl_judge_probes")
    ctx.write_run_json(run_dir / JUDGE_RUN, judge_spec)
    per = (
        verdicts[verdicts.failure.isna()]
        .groupby(["task", "order"], sort=True)
        .agg(win_rate=("value", lambda p: 100 * p.mean()), verdicts=("value", "size"))
        .reset_index()
    )
    ctx.publish_table(
        f"ucl-judge-{agent_name}",
        table_rows(per),
        f"UCL-Bench win rate of {agent_name} against {ids.reference} per task and judge order, judged by "
        f"{judge_model.model}{' (proxy)' if judge_model.is_scripted else ''}",
    )
    ctx.check_calls(run_dir / JUDGE_USAGE, judged=[run_dir / "verdicts.parquet", run_dir / "hint_scores.parquet"])
    valid = verdicts[verdicts.failure.isna()]
    excluded = verdicts.failure.value_counts().to_dict()
    judge_name = judge_model.model if panel is None else panel_label([m.model for m in panel], aggregations[0])
    long = agent_long(
        agent_name,
        ids.reference,
        judge_name,
        verdicts,
        hints,
        pd.concat([dialogues, reference_dialogues], ignore_index=True),
    )
    return (
        f"{agent_name} vs {ids.reference} judged by {judge_name}: {len(valid):,}/{len(verdicts):,} "
        f"verdicts valid, excluded {excluded or 'none'}; {headline_text(long, agent_name)} (as in reports/ucl.md: "
        f"means of the 22 task rates, CC apart); {session.hits:,} calls from the cache"
    )

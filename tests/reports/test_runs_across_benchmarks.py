"""The data card's runs section: one query over every benchmark's turns and dialogues, one over every judged
table, possible because they share one turns schema, one dialogue base and one judged-row base."""

from __future__ import annotations

import pandas as pd

from flows.kit.paths import Paths
from steps.j1.eval.schemas import J1Scores
from steps.judges.asking import Asked
from steps.judges.result import NOBODY, RULE, JudgedBy, JudgeFailure
from steps.plawbench.schemas import PlawJudgements
from steps.reports.data_card import RunsSection, runs_section
from steps.reports.stages import summarise_runs
from steps.schemas import Dialogues, Turns, validate
from steps.simulate.records import RunLabel, run_tables
from steps.ucl.schemas import UclVerdicts
from tests.simulate.test_records import scenario_of, trial

BY = JudgedBy("openai/judge", False, "v1")


def write(frame: pd.DataFrame, path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_parquet(path, index=False)


def dialogue_run(paths: Paths, bench: str, agent: str, dialogues, **extension) -> None:
    turns, rows = run_tables(dialogues, scenario_of, RunLabel(f"{bench}-{agent}", agent, bench))
    validate(turns, Turns, table="turns"), validate(rows, Dialogues, table="dialogues")
    write(turns, paths.run(bench, agent, "turns.parquet"))
    write(rows.assign(**extension), paths.run(bench, agent, "dialogues.parquet"))


def asked(failure: JudgeFailure | None = None, attempts: int = 1) -> Asked:
    return Asked(None, failure, "bad" if failure else "", "{}", attempts, ("k",))


def test_dialogues_and_judged_rows_are_counted_per_benchmark_in_one_query_each(tmp_path):
    paths = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=tmp_path / ".cache")
    dialogue_run(paths, "j1", "oracle", [trial()])
    dialogue_run(paths, "j1", "null", [trial()])
    # another benchmark's table has its own extra columns: the query reads only the base
    dialogue_run(paths, "ucl", "oracle", [trial(at=[("defendant", 0)])], rounds=0, task="t")
    j1 = [
        {**RULE.row(1.0), "status": "scored"},
        {**BY.judgement(None, [asked(JudgeFailure.UNPARSABLE, 2)]).row(), "status": "judge_failed"},
        {**RULE.row(failure="call_failed: defendant: server"), "status": "dialogue_failed"},
    ]
    base = {"run_id": "r", "agent": "oracle", "scenario": "KQ", "metric": "I-1", "evidence": "{}"}
    scores = pd.DataFrame([{**base, **r, "instance_id": f"KQ/{i}", "component": ""} for i, r in enumerate(j1)])
    write(validate(scores, J1Scores, table="scores"), paths.run("j1", "oracle", "scores.parquet"))
    item = {"run_id": "r", "reference_run_id": "rr", "agent": "oracle", "reference": "ref", "task": "t", "raw": ""}
    verdicts = [
        {**item, "item_id": "t/1", "order": "candidate_first", "verdict": 1, "outcome": "win", **BY.scored(1.0).row()},
        {**item, "item_id": "t/1", "order": "reference_first", "verdict": None, "outcome": None}
        | BY.judgement(None, [asked(JudgeFailure.CALL_FAILED, 3)]).row(),
    ]
    validate(pd.DataFrame(verdicts), UclVerdicts, table="verdicts")
    write(pd.DataFrame(verdicts).astype({"verdict": "Int64"}), paths.run("ucl", "oracle", "verdicts.parquet"))
    judgement = {"agent": "oracle", "item_id": "plc/1", "category": "consultation", "scenario": "s"}
    plaw = {**judgement, "variant": "single", "judge_run": "j", **NOBODY.row(failure="agent_call_failed")}
    plaw |= {"awarded": None, "max_points": 1.0, "clamped": 0, "fails_triggered": 0, "penalty_points": 0.0}
    plaw |= {"questions": None, "questions_truncated": False, "raw": "", "evidence": "{}"}
    write(
        validate(pd.DataFrame([plaw]), PlawJudgements, table="j"),
        paths.run("plawbench", "oracle", "judgements.parquet"),
    )

    runs = summarise_runs(paths)

    per = runs.dialogues.groupby("benchmark")[["dialogues", "turns", "failed_calls", "marker", "call_failed"]].sum()
    assert per.dialogues.to_dict() == {"j1": 2, "ucl": 1}
    assert per.turns.to_dict() == {"j1": 8, "ucl": 3} and per.failed_calls.to_dict() == {"j1": 0, "ucl": 1}
    assert per.marker.to_dict() == {"j1": 2, "ucl": 0} and per.call_failed.to_dict() == {"j1": 0, "ucl": 1}
    assert runs.dialogues[["benchmark", "agent"]].values.tolist() == [
        ["j1", "null"],
        ["j1", "oracle"],
        ["ucl", "oracle"],
    ]
    judged = runs.judged.set_index(["benchmark", "table"])
    j1_row = judged.loc[("j1", "scores")]
    assert (j1_row["rows"], j1_row.judged, j1_row.valued, j1_row.unparsable, j1_row.left_out) == (3, 1, 1, 1, 1)
    assert j1_row.attempts == 2 and not j1_row.proxy
    assert judged.loc[("ucl", "verdicts"), ["rows", "valued", "call_failed", "attempts"]].tolist() == [2, 1, 1, 3]
    assert judged.loc[("plawbench", "judgements"), ["rows", "judged", "left_out"]].tolist() == [1, 0, 1]
    text = runs_section(runs)
    assert "## Runs across benchmarks" in text and "| j1 | oracle | 1 | 4 |" in text
    assert "how the dialogues ended.\n\n| benchmark | agent |" in text  # no word of a context limit none reached


def test_no_runs_no_section(tmp_path):
    paths = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=tmp_path / ".cache")
    assert summarise_runs(paths) == RunsSection() and runs_section(RunsSection()) == ""


def test_dialogues_at_the_agent_s_context_limit_are_shown_apart_from_failed_calls(tmp_path):
    from steps.llm import FailureKind
    from steps.simulate.instance import Instance
    from tests.simulate.test_engine import COURT, run
    from tests.simulate.toys import Script, court

    paths = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=tmp_path / ".cache")
    dialogue_run(paths, "j1", "oracle", [trial()])
    assert "context_exceeded" not in summarise_runs(paths).dialogues.columns  # the column only where one happened
    script = Script(
        {"judge": ["对被告人说：你好。"], "defendant": ["好。"]}, {("judge", 1)}, FailureKind.CONTEXT_EXCEEDED
    )
    at_limit = run(court(), Instance("c/2", "TOYCOURT", COURT.profiles), script)
    dialogue_run(paths, "j1", "local", [at_limit, trial(at=[("defendant", 0)])])
    runs = summarise_runs(paths)
    local = runs.dialogues.set_index("agent").loc["local"]
    assert (local.context_exceeded, local.call_failed, local.failed_calls) == (1, 1, 1)  # the limit is no failed call
    assert runs.dialogues.set_index("agent").loc["oracle"].context_exceeded == 0
    text = runs_section(runs)
    assert "ended.\n`context_exceeded`: the dialogues that ended where the agent's request outgrew its context" in text
    assert "failed calls).\n\n| benchmark | agent |" in text


def test_an_agent_with_repeats_is_counted_once_with_its_runs(tmp_path):
    """A repeated agent's later runs (runs/<agent>/repeat-<i>/) are not more dialogues of it: the card counts its
    first run and says how many runs are on disk (docs/statistics.md#repeated-runs)."""
    paths = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=tmp_path / ".cache")
    dialogue_run(paths, "j1", "oracle", [trial()])
    before = summarise_runs(paths)
    assert "repeats" not in before.dialogues.columns and "`repeats`:" not in runs_section(before)
    for i in (0, 1, 2):  # the sampler's three runs, each written where the flow writes it (repeat-<i>/ from 1)
        dialogue_run(paths.for_repeat("sampler", i), "j1", "sampler", [trial()])
    assert (paths.repeat_run("j1", "sampler", 2) / "dialogues.parquet").is_file()
    runs = summarise_runs(paths)
    rows = runs.dialogues.set_index("agent")
    assert rows.loc["sampler", "dialogues"] == 1 and rows.loc["sampler", "turns"] == 4  # repeat 0's only, not 3 and 12
    assert rows.loc["sampler", "repeats"] == 3 and rows.loc["oracle", "repeats"] == 1
    assert list(runs.dialogues.columns[:4]) == ["benchmark", "agent", "repeats", "dialogues"]
    text = runs_section(runs)
    assert "| j1 | sampler | 3 | 1 | 4 |" in text and "`repeats`: the runs an agent with" in text

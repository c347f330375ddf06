"""Judgements made in one place (`JudgedBy`) and the judged-row base every judged table extends."""

from __future__ import annotations

import pandas as pd
import pytest

from steps.j1.eval.schemas import J1Scores
from steps.judges.asking import Asked
from steps.judges.result import NOBODY, RULE, JudgedBy, JudgeFailure
from steps.llm import ModelConfig
from steps.mile.schemas import MileScores
from steps.plawbench.schemas import PlawJudgements
from steps.schemas import TableError, validate
from steps.schemas.judged import Judged
from steps.ucl.schemas import UclHintScores, UclVerdicts

BY = JudgedBy("openai/judge", False, "pointwise@1")


def call(failure: JudgeFailure | None = None, raw: str = "{}", attempts: int = 1, key: str = "k") -> Asked:
    return Asked(None, failure, "bad" if failure else "", raw, attempts, (key,))


def test_a_judgement_keeps_every_call_and_fails_with_the_first_failed_one():
    calls = [call(raw="a", key="k1"), call(JudgeFailure.OUT_OF_RANGE, "b", 2, "k2"), call(JudgeFailure.UNPARSABLE)]
    j = BY.judgement(0.5, calls, {"n": 3})
    assert (j.value, j.failure, j.error) == (None, JudgeFailure.OUT_OF_RANGE, "bad")
    assert (j.raw, j.attempts, j.call_keys[:2]) == ("a\n\nb\n\n{}", 4, ("k1", "k2"))
    assert (j.judge_model, j.proxy, j.prompt_version, j.evidence) == ("openai/judge", False, "pointwise@1", {"n": 3})
    ok = BY.judgement(0.25, [call(), call()])
    assert (ok.value, ok.failure, ok.error, ok.attempts) == (0.25, None, "", 2)


def test_a_judgement_is_truncated_when_an_answer_it_read_was_cut_at_max_tokens():
    cut = Asked(0.5, None, "", "{}", 1, ("k",), truncated=True)
    assert BY.judgement(0.5, [call(), cut]).row()["truncated"] is True
    assert BY.judgement(0.5, [call(), call()]).row()["truncated"] is False


def test_a_judgement_without_a_value_needs_a_failed_call():
    with pytest.raises(ValueError, match="either a value or a failure"):
        BY.judgement(None, [call()])
    assert BY.scored(0.0).attempts == 0


def test_the_judge_of_a_model_says_whether_it_is_the_proxy():
    by = JudgedBy.of(ModelConfig(name="judge", model="scripted/judge"), "v1")
    assert (by.model, by.proxy, by.prompt_version) == ("scripted/judge", True, "v1")


def test_rows_have_exactly_the_judged_columns():
    columns = list(Judged.to_schema().columns)
    failed = BY.judgement(None, [call(JudgeFailure.CALL_FAILED)])
    assert list(failed.row()) == columns
    assert failed.row() | {"attempts": 1} == {
        "judge": "openai/judge",
        "judge_prompt_version": "pointwise@1",
        "judge_proxy": False,
        "value": None,
        "failure": "call_failed",
        "error": "bad",
        "attempts": 1,
        "truncated": False,
    }
    assert RULE.row(0.5)["judge"] == "rule" and NOBODY.row(failure="agent_call_failed")["judge"] == ""
    validate(pd.DataFrame([failed.row(), RULE.row(1.0)]), Judged, table="judged")


@pytest.mark.parametrize("row", [RULE.row(), {**RULE.row(0.5), "failure": "unparsable"}])
def test_a_row_has_a_value_or_a_failure_never_both_nor_neither(row):
    with pytest.raises(TableError, match="value or a failure"):
        validate(pd.DataFrame([row]), Judged, table="judged")


def test_every_judged_table_extends_the_base():
    base = set(Judged.to_schema().columns)
    for schema in (J1Scores, MileScores, UclVerdicts, UclHintScores, PlawJudgements):
        assert issubclass(schema, Judged) and base <= set(schema.to_schema().columns), schema.__name__


def test_only_a_skipped_j1_row_may_have_neither_a_value_nor_a_failure():
    row = {
        "run_id": "r",
        "agent": "a",
        "scenario": "KQ",
        "instance_id": "KQ/1",
        "metric": "I-1",
        "component": "",
        "evidence": "{}",
        **RULE.row(),
    }
    validate(pd.DataFrame([{**row, "status": "skipped"}]), J1Scores, table="scores")
    with pytest.raises(TableError):
        validate(pd.DataFrame([{**row, "status": "scored"}]), J1Scores, table="scores")


def test_the_stage_failure_tally_knows_every_judge_failure_kind():
    """flows/kit/judged.py names the kinds itself (the kit imports nothing new from steps/): they must agree."""
    from flows.kit import judged

    assert set(judged.JUDGE_FAILURES) == {k.value for k in JudgeFailure} and judged.UNPARSABLE in judged.JUDGE_FAILURES

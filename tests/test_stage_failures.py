"""`flows.kit.models.check_calls`, the one place that decides whether a stage's failed calls end it, and how
`run_stage` reports it: exit 1 with one line of counts by kind."""

from __future__ import annotations

import pandas as pd
import pytest
from prefect import flow

from flows.kit.config import Params
from flows.kit.models import check_calls
from flows.kit.stage import CallsFailed, run_stage


def _usage(kinds: list[str | None]) -> pd.DataFrame:
    return pd.DataFrame({"failure_kind": kinds, "failure_message": [k and f"{k}: boom" for k in kinds]})


def _params(tolerance: float) -> Params:
    return Params.model_validate({"llm": {"max_failed_fraction": tolerance}})


def test_failures_above_the_tolerance_raise_with_counts_by_kind():
    with pytest.raises(CallsFailed) as caught:
        check_calls(_params(0.0), _usage([None] * 7 + ["server", "timeout", "server"]))
    assert caught.value.by_kind == {"server": 2, "timeout": 1} and caught.value.n_calls == 10
    assert "3 of 10 model calls failed after retries (server 2, timeout 1; 30.0%), > llm.max_failed_fraction 0.0" in (
        str(caught.value)
    )


def test_at_or_below_the_tolerance_the_stage_passes_and_says_so(capsys):
    check_calls(_params(0.3), _usage([None] * 7 + ["server"] * 3))  # exactly 30 %: accepted
    assert "accepted: 3 of 10 model calls failed" in capsys.readouterr().err
    with pytest.raises(CallsFailed):
        check_calls(_params(0.29), _usage([None] * 7 + ["server"] * 3))
    check_calls(_params(0.0), _usage([None] * 3), _usage([]))  # no failure, or no call at all: nothing to say
    check_calls(_params(0.0))


def test_every_call_failing_fails_whatever_the_tolerance():
    with pytest.raises(CallsFailed, match="every call failed"):
        check_calls(_params(1.0), _usage(["bad_request"] * 2))


def test_the_tolerance_is_a_fraction():
    with pytest.raises(ValueError, match="max_failed_fraction"):
        _params(1.5)


def test_run_stage_turns_failed_calls_into_exit_1_with_one_line(capsys):
    @flow(name="failing_stage")
    def failing_stage() -> str:
        check_calls(_params(0.0), _usage([None, "rate_limit"]))
        return "never"

    assert run_stage("failing_stage", failing_stage) == 1
    err = capsys.readouterr().err
    assert "failing_stage failed: 1 of 2 model calls failed after retries (rate_limit 1; 50.0%)" in err
    assert "Traceback" not in err


def _judged(failures: list[str | None], judge: str = "hosted_vllm/judge") -> pd.DataFrame:
    return pd.DataFrame(
        {
            "judge": judge,
            "value": [None if f else 0.5 for f in failures],
            "failure": failures,
            "error": [f and "no [[1]], [[2]] or [[3]] in the answer" for f in failures],
        }
    )


def test_unparsable_judge_answers_count_as_failures_of_their_own_kind(capsys):
    answers = _judged([None] * 6 + ["unparsable"] * 2 + ["call_failed", "agent_failed"])  # 9 answers, 2 unparsable
    with pytest.raises(CallsFailed) as caught:
        check_calls(_params(0.2), _usage([None] * 12), judged=[answers])
    assert caught.value.by_kind == {"unparsable": 2}
    message = str(caught.value)
    assert "2 of 9 judge answers unparsable after the repair rounds (22.2%), > llm.max_failed_fraction 0.2" in message
    assert "no [[1]], [[2]] or [[3]] in the answer" in message and "a rerun gets the same answers" in message
    check_calls(_params(0.23), _usage([None] * 12), judged=[answers])
    assert "accepted: 2 of 9 judge answers unparsable" in capsys.readouterr().err


def test_rule_values_and_rows_left_out_are_not_judge_answers():
    rule = _judged(["unparsable"], judge="rule")  # never a model's answer
    skipped = _judged([None]).assign(value=None)  # nothing to compare: neither a value nor a failure
    check_calls(_params(0.0), _usage([None]), judged=[rule, skipped, _judged([None, "dialogue_failed"])])


def test_failed_calls_and_unparsable_answers_are_reported_together():
    with pytest.raises(CallsFailed) as caught:
        check_calls(_params(0.0), _usage([None, "server"]), judged=[_judged([None, "unparsable"])])
    assert caught.value.by_kind == {"server": 1, "unparsable": 1}
    assert "1 of 2 model calls failed after retries (server 1; 50.0%); 1 of 2 judge answers unparsable" in str(
        caught.value
    )

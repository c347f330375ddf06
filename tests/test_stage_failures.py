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

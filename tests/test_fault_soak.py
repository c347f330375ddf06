"""The fault-injection soak (perf/fault_soak.py) as a test: no failed call is an answer, no failed stage is
locked, no key is written anywhere, and a healthy rerun ends byte-identical to a run that never saw a fault."""

from __future__ import annotations

import pytest

from flows.kit.stages import stage_table
from perf.fault_soak import SOAK_MIX, run_soak
from tests.helpers import BASE_STAGES

# Three `dvc repro` runs of every stage that calls a model, from the session's base stages (clean, faulty, healthy
# rerun); the report stages, which call none, are left out (`reports=False`).
pytestmark = [pytest.mark.slow, pytest.mark.e2e, pytest.mark.timeout(3600)]


def test_a_fifth_of_requests_faulty_loses_nothing_and_leaks_nothing(tmp_path, mirror, base):
    figures = run_soak(tmp_path, mirror, rate=0.2, seed=7, base=base, reports=False)
    report = str(figures)
    assert figures.clean_rc == 0, report
    # Faults of every kind in the mix were served, and some calls still failed after retries (those not retried).
    assert set(figures.faults_injected) == {fault[0] for fault in SOAK_MIX}, report
    assert figures.failures_recorded.get("auth", 0) > 0, report
    # a content filter (with text) and a reply cut off inside its reasoning are failures, never answers (issue 35)
    assert figures.failures_recorded.get("content_filter", 0) > 0, report
    assert figures.failures_recorded.get("truncated", 0) > 0, report
    assert figures.faulty_repro_rc != 0 and figures.stages_failed_in_faulty_run, report
    assert figures.rows_lost == 0, report
    assert figures.stages_locked_with_failures == [], report
    assert figures.files_with_key == [], report
    # The healthy rerun calls only what failed, and ends where an uninterrupted clean run ends.
    assert figures.rerun_rc == 0, report
    assert 0 < figures.rerun_calls < figures.clean_calls, report
    assert figures.identical, figures.differing
    # The clean run ran every stage but the base ones (done in `base`) and the reports (which call no model)
    reports = {name for name in stage_table() if name.endswith("_report")}
    assert reports >= {"data_report", "html_report", "lawbench_report", "j1_report"}
    assert set(figures.stages_run) == set(stage_table()) - set(BASE_STAGES) - reports, figures.stages_run

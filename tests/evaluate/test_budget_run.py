"""`llm.budget_usd` over a whole run, end to end: in a copy of the project, `python -m flows.pipeline` (what `make
run` runs) starts `dvc repro` of two LawBench stages of an API model (gpt-4o-mini's id, priced in litellm's map,
served by the fake server) as one run session. The stages are separate processes; they spend the cap together, so
the second stops at it (exit 1, its unsent items written as `budget` rows, DVC does not lock it). A rerun with a
higher cap is a new session: it sends only the calls never answered, and ends clean."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from steps.llm.pricing import pricing_for
from tests.fake_openai_server import FakeOpenAIServer
from tests.helpers import copy_project

pytestmark = [pytest.mark.slow, pytest.mark.e2e, pytest.mark.timeout(2400)]
BIN = Path(sys.executable).parent
ANSWER = "正确答案：A"
STAGES = ["lawbench_predict@mini-zero_shot", "lawbench_predict@mini-one_shot"]


def _run(project: Path, env: dict, budget: float) -> subprocess.CompletedProcess:
    params = yaml.safe_load((project / "params.yaml").read_text(encoding="utf-8"))
    params["llm"]["budget_usd"] = budget
    (project / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return subprocess.run(
        [str(BIN / "python"), "-m", "flows.pipeline", *STAGES], cwd=project, env=env, capture_output=True, text=True
    )


def _budget_rows(project: Path) -> list[int]:
    runs = [project / "data/lawbench/runs/mini" / s for s in ("zero_shot", "one_shot")]
    return [int((pd.read_parquet(r / "predictions.parquet").failure_kind == "budget").sum()) for r in runs]


def test_two_stages_of_one_run_share_the_cap_and_a_rerun_pays_only_the_rest(tmp_path, mirror, prefect_api, base):
    one_call = pricing_for("openai/gpt-4o-mini").cost(7, len(ANSWER))  # the server: 7 prompt tokens, 1 per character
    cache = tmp_path / "cache"
    with FakeOpenAIServer(reply=lambda body: ANSWER) as server:
        agent = {"model": "openai/gpt-4o-mini", "api_base": server.url, "concurrency": 1, "limit": 1}
        project = tmp_path / "jurisflow"
        copy_project(  # from the session's base stages: ingest is done
            project,
            {"agents": {"mini": {**agent, "benchmarks": ["lawbench"]}}, "llm": {"cache_dir": str(cache)}},
            replace=("agents",),
            base=base,
        )
        env = {
            **os.environ,
            "JURISFLOW_MIRROR": str(mirror),
            "PREFECT_API_URL": prefect_api,
            "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        }
        env.pop("JURISFLOW_RUN_SESSION", None)
        first = _run(project, env, budget=29.5 * one_call)  # 20 items per stage: the 30th call reaches the cap
        assert first.returncode != 0
        assert server.count == 30, first.stdout[-2000:] + first.stderr[-2000:]
        assert "reached by this run's stages together" in first.stderr
        assert sorted(_budget_rows(project)) == [0, 10]  # the stage that ran second stopped after 10 calls
        with sqlite3.connect(cache / "spend.sqlite") as db:
            sessions = db.execute("SELECT session, sum(usd), sum(calls) FROM spend GROUP BY session").fetchall()
        assert len(sessions) == 1 and sessions[0][1] == pytest.approx(30 * one_call) and sessions[0][2] == 30

        second = _run(project, env, budget=100 * one_call)
        assert second.returncode == 0, second.stdout[-2000:] + second.stderr[-2000:]
        assert server.count == 40  # only the 10 calls never answered; the 30 paid ones come from the cache
    assert _budget_rows(project) == [0, 0]
    with sqlite3.connect(cache / "spend.sqlite") as db:
        spent = [row[0] for row in db.execute("SELECT sum(usd) FROM spend GROUP BY session ORDER BY min(updated)")]
    assert spent == pytest.approx([30 * one_call, 10 * one_call])

"""Stages seen through a real Prefect server, read back with Prefect's client API: run names and tags, task runs
at the grain a user follows, progress and summary logs at INFO, result artifacts, and a failure's one line."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
import yaml

from steps.ucl.tasks import task_of
from tests.conftest import ROOT
from tests.helpers import write_lawbench_interim

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("prefect_on")]

_EVERY_TENTH = {"JURISFLOW_PROGRESS_INTERVAL_S": "0"}  # plain progress lines at every tenth however fast the stage


@pytest.fixture(scope="module")
def prefect_api(tmp_path_factory) -> Iterator[str]:
    """A Prefect server of this module's own: the tests find their runs by name, and on the session's server the small
    run (another worker) runs stages of the same names at the same time."""
    from tests.helpers import prefect_server

    with prefect_server(tmp_path_factory.mktemp("monitor-prefect")) as url:
        yield url


@pytest.fixture(scope="module")
def project(tmp_path_factory, mirror, manifest) -> Path:
    """A working directory with the interim tables lawbench_predict and ucl_simulate read, and scripted agents."""
    from steps.sources import Fetched
    from steps.tables import to_arrow, write_parquet_atomic
    from steps.ucl.sources import load_ucl

    root = tmp_path_factory.mktemp("monitored")
    interim = write_lawbench_interim(mirror, manifest, root / "data" / "interim")
    ucl = load_ucl([Fetched(f, mirror / f.path) for f in manifest.for_dataset("ucl")])
    write_parquet_atomic(to_arrow(ucl), interim / "ucl.parquet")
    params = {
        "agents": {"oracle": {"model": "scripted/oracle"}, "null": {"model": "scripted/null"}},
        "llm": {"cache_dir": str(root / "cache")},
        "lawbench": {"limit": 2},
        "ucl": {"limit": 1},
    }
    (root / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    return root


def _stage(project: Path, api: str, *argv: str, **extra_env: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PREFECT_API_URL": api, "PYTHONPATH": str(ROOT), **extra_env}
    return subprocess.run(
        [sys.executable, "-m", *argv], cwd=project, env=env, capture_output=True, text=True, timeout=600
    )


async def _seen(api: str, run_name: str) -> dict:
    """The flow run called `run_name`, its task runs, logs and artifacts, as the Prefect API holds them."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        ArtifactFilter,
        ArtifactFilterFlowRunId,
        FlowRunFilter,
        FlowRunFilterName,
        LogFilter,
        LogFilterFlowRunId,
    )
    from prefect.client.schemas.sorting import FlowRunSort, LogSort

    async with get_client() as client:
        assert str(client.api_url).rstrip("/") == api.rstrip("/")
        # the newest run of that name: the session's server also holds other tests' runs of the same stage
        [run] = await client.read_flow_runs(
            flow_run_filter=FlowRunFilter(name=FlowRunFilterName(any_=[run_name])),
            sort=FlowRunSort.EXPECTED_START_TIME_DESC,
            limit=1,
        )
        tasks = await client.read_task_runs(flow_run_filter=FlowRunFilter(id={"any_": [run.id]}))
        logs = await client.read_logs(
            LogFilter(flow_run_id=LogFilterFlowRunId(any_=[run.id])), limit=200, sort=LogSort.TIMESTAMP_ASC
        )
        artifacts = await client.read_artifacts(
            artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[run.id]))
        )
        flow = await client.read_flow(run.flow_id)
    return {"run": run, "flow": flow.name, "tasks": tasks, "logs": logs, "artifacts": artifacts}


def _read(api: str, run_name: str) -> dict:
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with temporary_settings({PREFECT_API_URL: api}):
        return asyncio.run(_seen(api, run_name))


def test_lawbench_run_is_named_tagged_split_per_task_logged_and_has_its_scores(project, prefect_api):
    done = _stage(project, prefect_api, "flows.run", "lawbench_predict", "oracle", "zero_shot")
    assert done.returncode == 0, done.stderr
    seen = _read(prefect_api, "lawbench_predict@oracle-zero_shot")
    run = seen["run"]
    assert seen["flow"] == "lawbench_predict" and run.state.type.value == "COMPLETED"
    identity = {t for t in run.tags if t.split(":")[0] in ("project", "commit", "session")}
    assert set(run.tags) - identity == {
        "benchmark:lawbench",
        "stage:lawbench_predict",
        "agent:oracle",
        "setting:zero_shot",
        "model:scripted/oracle",
        "scripted",
    }
    assert f"project:{project.name}" in identity  # commit and session: tests/test_prefect_runs.py

    # one task run per LawBench task, named after it, plus the scoring task; every one completed
    written = pd.read_parquet(project / "data/lawbench/runs/oracle/zero_shot/scores.parquet")
    names = sorted(t.name for t in seen["tasks"])
    per_task = sorted(n for n in names if n.endswith(" zero_shot"))
    assert per_task == sorted(f"{t} zero_shot" for t in written.task) and len(per_task) == 20
    assert any(n.startswith("score") for n in names)
    assert {t.state.type.value for t in seen["tasks"]} == {"COMPLETED"}

    # progress at every tenth and the stage's own one-line summary, at INFO, in the run's logs
    messages = [(log.level, log.message) for log in seen["logs"]]
    assert (20, "lawbench oracle zero_shot: 40/40 (100%)") in messages
    assert (20, "lawbench oracle zero_shot: 4/40 (10%)") in messages
    summary = [m for level, m in messages if level == 20 and m.startswith("lawbench_predict: oracle (scripted/oracle)")]
    assert len(summary) == 1 and "40 items over 20 tasks" in summary[0]
    assert summary[0].removeprefix("lawbench_predict: ") in done.stderr.replace("\n", "")

    # the headline table: one row per task, the scores ×100 as written to scores.parquet
    [artifact] = seen["artifacts"]
    assert artifact.key == "lawbench-oracle-zero-shot" and artifact.type == "table"
    rows = json.loads(artifact.data) if isinstance(artifact.data, str) else artifact.data
    expected = {t: round(100 * s, 2) for t, s in zip(written.task, written.score, strict=True)}
    assert {r["task"]: r["score"] for r in rows} == expected
    # the tasks in their natural order: 2-2 before 2-10
    tasks = [r["task"] for r in rows]
    assert tasks == sorted(tasks, key=lambda t: tuple(int(n) for n in t.split("-")))
    assert tasks.index("2-2") < tasks.index("2-10")
    assert "scripted" in artifact.description


def test_ucl_run_has_one_task_run_per_ucl_task_following_its_dialogues(project, prefect_api):
    done = _stage(project, prefect_api, "flows.run", "ucl_simulate", "null")
    assert done.returncode == 0, done.stderr
    seen = _read(prefect_api, "ucl_simulate@null")
    assert {"benchmark:ucl", "agent:null", "model:scripted/null", "scripted", "environment:scripted/persona"} <= set(
        seen["run"].tags
    )
    dialogues = pd.read_parquet(project / "data/ucl/runs/null/dialogues.parquet")
    labels = {f"{task_of(k).id} {task_of(k).name}" for k in dialogues.task}
    assert sorted(t.name for t in seen["tasks"]) == sorted(labels) and "1-1 Article Recitation" in labels
    assert {t.state.type.value for t in seen["tasks"]} == {"COMPLETED"}
    task_logs = {log.message for log in seen["logs"] if log.task_run_id is not None}
    assert {f"{label}: 1 done" for label in labels} <= task_logs
    [artifact] = seen["artifacts"]
    rows = json.loads(artifact.data) if isinstance(artifact.data, str) else artifact.data
    assert sum(r["dialogues"] for r in rows) == len(dialogues) and artifact.key == "ucl-simulate-null"


def test_a_failed_stage_logs_its_one_line_at_error(project, prefect_api):
    done = _stage(project, prefect_api, "flows.run", "lawbench_predict", "oracle", "two_shot")
    assert done.returncode == 1
    assert "unknown setting 'two_shot'" in done.stderr
    seen = _read(prefect_api, "lawbench_predict@oracle-two_shot")
    assert seen["run"].state.type.value == "FAILED"
    errors = [log.message for log in seen["logs"] if log.level == 40]
    assert errors == ["lawbench_predict failed: unknown setting 'two_shot'; expected one of zero_shot, one_shot"]
    assert done.stderr.count("unknown setting 'two_shot'") == 1  # the terminal keeps its one line


def test_a_piped_stage_prints_its_progress_as_plain_lines_and_ends_with_a_closing_line(project, prefect_api):
    """flows/kit/progress.py through a real stage whose stderr is a pipe (as under DVC or CI): plain lines at the
    tenths of its loop with calls, tokens, ETA and the tasks still running, the loop's last line, and one closing
    line with items, calls, cached, failed, tokens and seconds; a rerun says its calls came from the cache."""
    run = project / "data/lawbench/runs/oracle/one_shot"
    done = _stage(project, prefect_api, "flows.run", "lawbench_predict", "oracle", "one_shot", **_EVERY_TENTH)
    assert done.returncode == 0, done.stderr
    assert "\x1b[" not in done.stderr  # no live display, no colours: plain lines
    usage = pd.read_parquet(run / "usage.parquet")
    tokens = f"{int(usage.prompt_tokens.sum() + usage.completion_tokens.sum()):,}"
    lines = done.stderr.splitlines()
    loop = [line for line in lines if line.startswith("lawbench_predict@oracle-one_shot · lawbench oracle one_shot: ")]
    tenth = re.compile(
        r"· lawbench oracle one_shot: (\d+)/40 \((\d+)%\), \1 calls \(0 cached, 0 failed\), [\d,]+ tokens, \d+:\d\d, "
        r"ETA (\d+:\d\d|\?); groups (\d+)/20 done, running (\d-\d+ one_shot [01]/2(, |$))+"
    )
    tenths = [m for line in loop if (m := tenth.search(line))]
    assert [int(m[1]) for m in tenths] == [4, 8, 12, 16, 20, 24, 28, 32, 36], loop
    assert "running 1-1 one_shot" in loop[0] or "running 1-2 one_shot" in loop[0]  # the tasks, in natural order
    assert re.search(  # the loop's last line
        rf": 40/40 \(100%\), 40 calls \(0 cached, 0 failed\), {tokens} tokens, \d+:\d\d; groups 20/20 done$", loop[-1]
    )
    closing = re.fullmatch(
        rf"lawbench_predict@oracle-one_shot: done in [\d.]+ s; 40/40 items, 40 calls \(0 cached, 0 failed\), "
        rf"{tokens} tokens \({tokens} new\)",
        lines[-1],
    )
    assert closing, lines[-3:]

    again = _stage(project, prefect_api, "flows.run", "lawbench_predict", "oracle", "one_shot", **_EVERY_TENTH)
    assert again.returncode == 0, again.stderr
    last = again.stderr.splitlines()[-1]
    assert re.fullmatch(
        rf"lawbench_predict@oracle-one_shot: done in [\d.]+ s; 40/40 items, 40 calls \(40 cached, 0 failed\), "
        rf"{tokens} tokens \(0 new\)",
        last,
    ), last


def test_a_dialogue_stage_counts_dialogues_per_task_and_the_calls_of_the_whole_stage(project, prefect_api):
    done = _stage(project, prefect_api, "flows.run", "ucl_simulate", "oracle", **_EVERY_TENTH)
    assert done.returncode == 0, done.stderr
    dialogues = pd.read_parquet(project / "data/ucl/runs/oracle/dialogues.parquet")
    usage = pd.read_parquet(project / "data/ucl/runs/oracle/usage.parquet")
    n, calls = len(dialogues), len(usage)
    lines = done.stderr.splitlines()
    assert any(
        re.search(
            rf"· ucl oracle: {n}/{n} \(100%\), {calls} calls \(\d+ cached, 0 failed\), .*; groups {n}/{n} done$", line
        )
        for line in lines
    ), lines
    assert any(re.search(r"groups \d+/\d+ done, running 1-1 Article Recitation [01]/1", line) for line in lines), lines
    assert re.fullmatch(rf"ucl_simulate@oracle: done in [\d.]+ s; {n}/{n} items, {calls} calls .*", lines[-1])

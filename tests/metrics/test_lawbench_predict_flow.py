"""Stage `lawbench_predict` end to end: the scripted bounds through the model door, and a failing real model."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.lawbench_predict import lawbench_predict
from flows.stage import run_stage
from flows.tables import to_arrow, write_parquet_atomic
from steps.lawbench.scripted import best_form
from steps.metrics.lawbench import score_task
from steps.sources import LOADERS, Fetched
from tests.fake_openai_server import FakeOpenAIServer

LIMIT = 4


@pytest.fixture(scope="module")
def interim(mirror, manifest, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("interim")
    frame = LOADERS["lawbench_items"]([Fetched(f, mirror / f.path) for f in manifest.for_dataset("lawbench_items")])
    write_parquet_atomic(to_arrow(frame), folder / "lawbench_items.parquet")
    return folder


def _params(tmp_path: Path, agents: dict) -> Path:
    doc = {
        "agents": agents,
        "llm": {"cache_dir": str(tmp_path / "cache"), "backoff_base_s": 0.01, "backoff_max_s": 0.02, "max_attempts": 2},
        "lawbench": {"limit": LIMIT},
    }
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def _run(tmp_path, interim, agent: str, agents: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    out = tmp_path / "lawbench"
    code = run_stage("lawbench_predict", lawbench_predict, agent_name=agent, setting="zero_shot",
                     params_file=_params(tmp_path, agents), out_dir=out, interim_dir=interim)  # fmt: skip
    assert code == 0
    run = out / agent / "zero_shot"
    assert (run / "run.json").is_file() and (run / "usage.parquet").is_file()
    return pd.read_parquet(run / "predictions.parquet"), pd.read_parquet(run / "scores.parquet")


def test_oracle_and_null_bound_every_task_through_the_door(tmp_path, interim):
    agents = {"oracle": {"model": "scripted/oracle"}, "null": {"model": "scripted/null"}}
    predictions, scores = _run(tmp_path, interim, "oracle", agents)
    assert len(predictions) == 20 * LIMIT and scores["task"].nunique() == 20
    rows = zip(predictions.task, predictions.idx, predictions.reference, strict=True)
    assert (predictions.prediction == [best_form(t, i, r) for t, i, r in rows]).all()
    for task, group in predictions.groupby("task"):
        # the gold answers in their best form score the maximum (tests/metrics/test_lawbench_bounds.py)
        best = score_task(task, group.prediction.tolist(), group.reference.tolist(), group.prompt.tolist())
        assert scores.set_index("task").loc[task, "score"] == pytest.approx(best.score)
    assert scores.proxy.all() and (scores.n_failed == 0).all()

    predictions, scores = _run(tmp_path, interim, "null", agents)
    assert (predictions.prediction == "").all()
    by_task = scores.set_index("task")
    assert by_task.drop(index="2-6").score.abs().max() == 0.0
    assert by_task.loc[["1-2", "2-2", "3-1", "3-6", "3-7"], "abstention_rate"].eq(1.0).all()


def test_failed_calls_are_counted_never_scored_as_empty_answers(tmp_path, interim):
    with FakeOpenAIServer(reply=lambda body: "正确答案：A") as server:
        server.inject(*[("400",)] * 3)  # three requests are refused: bad requests are not retried
        agents = {"local": {"model": "hosted_vllm/test-model", "api_base": server.url, "concurrency": 1}}
        predictions, scores = _run(tmp_path, interim, "local", agents)
    failed = predictions[predictions.failure_kind.notna()]
    assert len(failed) == 3 and set(failed.failure_kind) == {"bad_request"} and failed.prediction.isna().all()
    assert scores.n_failed.sum() == 3 and not scores.proxy.any()
    assert (scores.n + scores.n_failed == LIMIT).all()

"""Stage `lawbench_predict` end to end: the scripted bounds through the model door, and a failing real model:
calls that still fail after retries end the stage with exit 1 (outputs and failure rows written), a rerun
retries only them, and `llm.max_failed_fraction` accepts a failure rate explicitly."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.kit.models import read_usage_log
from flows.kit.stage import run_stage
from flows.run import lawbench_predict
from steps.lawbench.metrics import score_task
from steps.lawbench.predict import prompt_text
from steps.lawbench.report import render_setting
from steps.lawbench.scripted import best_form
from steps.lawbench.stages import build_tables
from steps.reports.agents import AgentInfo
from tests.fake_openai_server import FakeOpenAIServer
from tests.helpers import project_paths, write_lawbench_interim

pytestmark = pytest.mark.slow  # runs stages end to end: handed out before the quick modules

LIMIT = 4
FAST_RETRIES = {"backoff_base_s": 0.01, "backoff_max_s": 0.02, "max_attempts": 2}


@pytest.fixture(scope="module")
def interim(mirror, manifest, tmp_path_factory) -> Path:
    return write_lawbench_interim(mirror, manifest, tmp_path_factory.mktemp("interim"))


def _params(tmp_path: Path, agents: dict, **llm) -> Path:
    doc = {
        "agents": agents,
        "llm": {"cache_dir": str(tmp_path / "cache"), **FAST_RETRIES, **llm},
        "lawbench": {"limit": LIMIT},
    }
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def _run(tmp_path, interim, agent: str, agents: dict, code: int = 0, **llm) -> tuple[pd.DataFrame, pd.DataFrame]:
    paths = project_paths(tmp_path, interim)
    got = run_stage(
        "lawbench_predict",
        lawbench_predict,
        agent_name=agent,
        setting="zero_shot",
        params_file=_params(tmp_path, agents, **llm),
        paths=paths,
    )
    assert got == code
    run = paths.run("lawbench", agent, "zero_shot")
    assert (run / "run.json").is_file() and (run / "usage.parquet").is_file()
    return pd.read_parquet(run / "predictions.parquet"), pd.read_parquet(run / "scores.parquet")


def test_oracle_and_null_bound_every_task_through_the_door(tmp_path, interim):
    agents = {"oracle": {"model": "scripted/oracle"}, "null": {"model": "scripted/null"}}
    predictions, scores = _run(tmp_path, interim, "oracle", agents)
    assert len(predictions) == 20 * LIMIT and scores["task"].nunique() == 20
    rows = zip(predictions.task, predictions.idx, predictions.reference, strict=True)
    assert (predictions.prediction == [best_form(t, i, r) for t, i, r in rows]).all()
    for task, group in predictions.groupby("task"):
        # the gold answers in their best form score the maximum (tests/lawbench/test_lawbench_bounds.py)
        best = score_task(task, group.prediction.tolist(), group.reference.tolist(), group.prompt.tolist())
        assert scores.set_index("task").loc[task, "score"] == pytest.approx(best.score)
    assert scores.proxy.all() and (scores.n_failed == 0).all()

    oracle_scores = scores
    predictions, scores = _run(tmp_path, interim, "null", agents)
    assert (predictions.prediction == "").all()
    by_task = scores.set_index("task")
    assert by_task.drop(index="2-6").score.abs().max() == 0.0
    assert by_task.loc[["1-2", "2-2", "3-1", "3-6", "3-7"], "abstention_rate"].eq(1.0).all()
    _check_intervals(tmp_path, interim, pd.concat([oracle_scores, scores], ignore_index=True))


def _check_intervals(tmp_path: Path, interim: Path, scores: pd.DataFrame) -> None:
    """The runs' item scores give their task scores and overall exactly; the CSV and Markdown carry the intervals;
    the oracle's and the null's intervals sit at the top and the bottom."""
    from steps.lawbench.intervals import item_scores
    from steps.lawbench.report import csv_text
    from steps.reports.agents import labelled_rows
    from steps.stats.cells import attach_intervals, cell_intervals

    cells = cell_intervals(item_scores(project_paths(tmp_path, interim), ["oracle", "null"]), b=200)
    published = pd.DataFrame({"setting": [], "model": [], "task": [], "score": [], "abstention_rate": []})
    long, deltas = build_tables(scores, published.astype({"score": float, "abstention_rate": float}))
    long = attach_intervals(long, cells)  # raises if an item-based estimate differs from the printed number
    score = long[long.metric == "score"].set_index(["agent", "scope"])
    assert score.ci_method.notna().all() and len(score) == 2 * 24  # 20 tasks, 3 levels, overall
    assert score.loc[("oracle", "1-2"), "ci_method"] == "wilson" and score.loc[("oracle", "1-2"), "ci_high"] == 1.0
    assert score.loc[("oracle", "2-1"), "ci_method"] == "cluster-bootstrap(B=200)"
    assert score.loc[("null", "overall"), "ci_low"] < score.loc[("null", "overall"), "value"] + 1e-9
    assert score.loc[("null", "overall"), "ci_high"] < score.loc[("oracle", "overall"), "ci_low"]
    info = {a: AgentInfo(a, f"scripted/{a}", True) for a in ("oracle", "null")}
    assert csv_text(labelled_rows(long, info)).splitlines()[0].endswith(",source,se,ci_low,ci_high,ci_method")
    report = render_setting(long, deltas, "zero_shot", info, "c0ffee", [])
    half = (score.loc[("oracle", "1-2"), "ci_high"] - score.loc[("oracle", "1-2"), "ci_low"]) * 50
    oracle_row = next(line for line in report.splitlines() if line.startswith("| oracle"))
    assert f" ± {round(half, 2)} |" in oracle_row and oracle_row.count("±") == 24


def test_failed_calls_are_counted_never_scored_as_empty_answers(tmp_path, interim):
    with FakeOpenAIServer(reply=lambda body: "正确答案：A") as server:
        server.inject(*[("400",)] * 3)  # three requests are refused: bad requests are not retried
        agents = {"local": {"model": "hosted_vllm/test-model", "api_base": server.url, "concurrency": 1}}
        predictions, scores = _run(tmp_path, interim, "local", agents, code=1)
    failed = predictions[predictions.failure_kind.notna()]
    assert len(failed) == 3 and set(failed.failure_kind) == {"bad_request"} and failed.prediction.isna().all()
    assert scores.n_failed.sum() == 3 and not scores.proxy.any()
    assert (scores.n + scores.n_failed == LIMIT).all()


def _failing(prompts: dict[str, str]):
    """A persistent fault rule: the request whose prompt is a key of `prompts` gets that fault, every time."""

    def rule(body: dict) -> tuple | None:
        fault = prompts.get(body["messages"][-1]["content"])
        return (fault,) if fault else None

    return rule


def _some_prompts(interim: Path, n_server: int, n_refused: int) -> dict[str, str]:
    items = pd.read_parquet(interim / "lawbench_items.parquet")
    items = items[(items.setting == "zero_shot") & (items.idx < LIMIT)].sort_values(["task", "idx"])
    prompts = [prompt_text(r.instruction, r.question) for r in items.itertuples()]
    return dict.fromkeys(prompts[:n_server], "500") | dict.fromkeys(prompts[-n_refused:], "400")


def test_failed_calls_fail_the_stage_and_a_rerun_retries_only_them(tmp_path, interim, capsys):
    faults = _some_prompts(interim, n_server=3, n_refused=2)
    with FakeOpenAIServer(reply=lambda body: "正确答案：A", fault_for=_failing(faults)) as server:
        agents = {"local": {"model": "hosted_vllm/test-model", "api_base": server.url}}
        predictions, scores = _run(tmp_path, interim, "local", agents, code=1)
        message = capsys.readouterr().err
        run = tmp_path / "data/lawbench/runs/local/zero_shot"
        usage = pd.read_parquet(run / "usage.parquet")
        # the outputs are written; the failure table is the usage rows with a failure kind
        assert usage.failure_kind.value_counts().to_dict() == {"server": 3, "bad_request": 2}
        assert usage.failure_message[usage.failure_kind.notna()].str.len().gt(0).all()
        assert predictions.failure_kind.value_counts().to_dict() == {"server": 3, "bad_request": 2}
        assert scores.n_failed.sum() == 5 and len(predictions) == 20 * LIMIT
        assert "5 of 80 model calls failed after retries (bad_request 2, server 3" in message
        assert "lawbench_predict failed" in message and str(run / "usage.parquet") in message
        assert server.count == 75 + 3 * 2 + 2  # 500s are retried (max_attempts 2), 400s are not

        server.fault_for, _ = None, server.reset_stats()
        predictions, scores = _run(tmp_path, interim, "local", agents, code=0)
        assert server.count == 5  # only the failed calls; the 75 others come from the cache
        assert sorted(r["messages"][-1]["content"] for r in server.requests) == sorted(faults)
    usage = read_usage_log(tmp_path / "cache", run / "usage.parquet", last=True)
    assert usage.failure_kind.isna().all() and int((~usage.cache_hit).sum()) == 5
    assert predictions.failure_kind.isna().all() and (scores.n_failed == 0).all()


def test_a_tolerated_failure_rate_exits_0_and_the_scores_carry_the_failed_count(tmp_path, interim, capsys):
    faults = _some_prompts(interim, n_server=0, n_refused=4)  # 4 of 80 calls: 5 %
    with FakeOpenAIServer(reply=lambda body: "正确答案：A", fault_for=_failing(faults)) as server:
        agents = {"local": {"model": "hosted_vllm/test-model", "api_base": server.url}}
        _run(tmp_path, interim, "local", agents, code=1, max_failed_fraction=0.04)
        predictions, scores = _run(tmp_path, interim, "local", agents, code=0, max_failed_fraction=0.05)
    assert "accepted: 4 of 80 model calls failed after retries (bad_request 4; 5.0%)" in capsys.readouterr().err
    assert scores.n_failed.sum() == 4 and predictions.failure_kind.notna().sum() == 4
    last = scores.set_index("task").loc[predictions.task.iloc[-1]]  # the 4 refused prompts are the last task's
    assert last.n == 0 and last.n_failed == 4 and pd.isna(last.score)  # kept, with no score

    info = AgentInfo("local", "hosted_vllm/test-model", False)
    published = pd.DataFrame({"setting": [], "model": [], "task": [], "score": [], "abstention_rate": []})
    long, deltas = build_tables(scores, published.astype({"score": float, "abstention_rate": float}))
    report = render_setting(long, deltas, "zero_shot", {"local": info}, "c0ffee", [])
    assert "| — (4 failed) |" in report and "4 calls failed after retries" in report
    overall = long[(long.scope == "overall") & (long.metric == "score")]
    assert overall.value.isna().all()  # a task without a score leaves Overall empty, never a mean of the rest


def test_an_agent_whose_every_call_fails_fails_the_stage_whatever_the_tolerance(tmp_path, interim, capsys):
    # A server that refuses every request (an unknown provider no longer gets this far: params refuse it at load).
    with FakeOpenAIServer(fault_for=lambda body: ("403",)) as server:
        agents = {"ghost": {"model": "openai/test-model", "api_base": server.url}}
        predictions, _ = _run(tmp_path, interim, "ghost", agents, code=1, max_failed_fraction=1.0)
    assert predictions.failure_kind.eq("auth").all()
    assert "80 of 80 model calls failed after retries (auth 80; 100.0%), every call failed" in capsys.readouterr().err


def test_cut_and_filtered_replies_are_recorded_and_counted_in_the_report(tmp_path, interim, capsys):
    """Issue 35: a content-filter finish with text and a reply cut off inside its reasoning are failed calls (exit 1,
    rerun); an answer cut at max_tokens is scored, marked `truncated` and counted in the report."""
    from steps.reports.runs import truncated_replies

    prompts = list(_some_prompts(interim, n_server=5, n_refused=1))[:5]
    faults = {prompts[0]: "cut", prompts[1]: "cut", prompts[2]: "think_cut", prompts[3]: "filtered_text"}
    faults[prompts[4]] = "think_only"
    with FakeOpenAIServer(reply=lambda body: "正确答案：A", fault_for=_failing(faults)) as server:
        agents = {"local": {"model": "hosted_vllm/test-model", "api_base": server.url}}
        predictions, scores = _run(tmp_path, interim, "local", agents, code=1)
        assert "3 of 80 model calls failed after retries (content_filter 1, truncated 2" in capsys.readouterr().err
        assert server.count == 80  # none of them is retried: the same request would be cut or filtered again
        run = tmp_path / "data/lawbench/runs/local/zero_shot"
        usage = pd.read_parquet(run / "usage.parquet")
        assert usage.failure_kind.value_counts().to_dict() == {"truncated": 2, "content_filter": 1}
        assert int(usage.truncated.sum()) == 2
        cut = predictions[predictions.truncated]
        assert len(cut) == 2 and (cut.prediction == "正确答案：A").all() and cut.failure_kind.isna().all()
        assert predictions.prediction[predictions.failure_kind.notna()].isna().all()  # never scored as text
        assert scores.n_failed.sum() == 3

        server.fault_for, _ = None, server.reset_stats()
        predictions, scores = _run(tmp_path, interim, "local", agents, code=0)
        assert server.count == 3  # the healthy rerun answers the three failed calls; the cut answers are cached
        assert int(predictions.truncated.sum()) == 2 and predictions.failure_kind.isna().all()

    info = AgentInfo("local", "hosted_vllm/test-model", False)
    published = pd.DataFrame({"setting": [], "model": [], "task": [], "score": [], "abstention_rate": []})
    long, deltas = build_tables(scores, published.astype({"score": float, "abstention_rate": float}))
    cut_replies = {"local": truncated_replies([run])}
    report = render_setting(long, deltas, "zero_shot", {"local": info}, "c0ffee", [], cut_replies)
    assert "Replies cut at max_tokens, by agent (and purpose): `local` 2 (agent 2)" in report
    clean = render_setting(long, deltas, "zero_shot", {"local": info}, "c0ffee", [], {"local": {}})
    assert "No reply was cut at max_tokens" in clean

"""A judge whose answers never parse does not pass: its unparsable verdicts count against `llm.max_failed_fraction`
(flows/kit/models.py `check_calls`, the tally of flows/kit/judged.py), and the report shows them in every cell
they leave out. The judge is a model on the fake OpenAI-compatible server answering prose (no [[d]]) to every
question, or to a fixed half of them; one item per task."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.kit.stage import run_stage
from flows.run import ucl_judge, ucl_reference, ucl_report, ucl_simulate
from tests.fake_openai_server import FakeOpenAIServer
from tests.ucl.test_failed_calls import ORACLE, _params, _paths

pytestmark = pytest.mark.slow  # runs stages end to end: handed out before the quick modules

PROSE = "两位助手都回答得不错，各有千秋，难以取舍。"  # a judge that never gives its verdict as [[d]]


def _odd(body: dict) -> bool:
    first = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return bool(int(hashlib.sha256(first.encode()).hexdigest(), 16) % 2)


def _some_prose(body: dict) -> str:
    """Prose (on every repair round too) for the questions whose first message hashes odd, else a verdict."""
    return PROSE if _odd(body) else "[[1]]"


def _tolerate(params: Path, fraction: float) -> None:
    doc = yaml.safe_load(params.read_text(encoding="utf-8"))
    doc["llm"]["max_failed_fraction"] = fraction
    params.write_text(yaml.safe_dump(doc), encoding="utf-8")


def _judge_setup(tmp_path: Path, ucl_items: pd.DataFrame, server: FakeOpenAIServer):
    paths = _paths(tmp_path, ucl_items)
    params = _params(tmp_path, server.url, {"model": "hosted_vllm/test-model", "api_base": server.url})
    doc = yaml.safe_load(params.read_text(encoding="utf-8"))
    doc["agents"] = {"oracle": {"model": ORACLE}}
    params.write_text(yaml.safe_dump(doc), encoding="utf-8")
    assert run_stage("ucl_reference", ucl_reference, params_file=params, paths=paths) == 0
    assert run_stage("ucl_simulate", ucl_simulate, agent_name="oracle", params_file=params, paths=paths) == 0
    return paths, params


def test_a_judge_that_only_answers_prose_fails_its_stage_and_the_report_counts_every_verdict(
    tmp_path, ucl_items, capsys
):
    with FakeOpenAIServer(reply=lambda body: PROSE) as server:
        paths, params = _judge_setup(tmp_path, ucl_items, server)
        assert run_stage("ucl_judge", ucl_judge, agent_name="oracle", params_file=params, paths=paths) == 1
        run = paths.run("ucl", "oracle")
        verdicts = pd.read_parquet(run / "verdicts.parquet")  # written, every verdict marked
        usage = pd.read_parquet(run / "judge_usage.parquet")
        n = len(verdicts)
        assert n > 0 and (verdicts.failure == "unparsable").all() and usage.failure_kind.isna().all()
        err = capsys.readouterr().err
        assert f"{n} of {n} judge answers unparsable after the repair rounds (100.0%)" in err
        assert f"rows of {run / 'verdicts.parquet'} with failure unparsable" in err

        _tolerate(params, 1.0)  # every answer may fail: accepted, and counted in the report
        server.reset_stats()
        assert run_stage("ucl_judge", ucl_judge, agent_name="oracle", params_file=params, paths=paths) == 0
        assert server.count == 0  # the answers came from the response cache: the same prose again
        assert f"accepted: {n} of {n} judge answers unparsable" in capsys.readouterr().err
    assert run_stage("ucl_report", ucl_report, params_file=params, paths=paths) == 0
    per_task = verdicts.groupby("task").size()
    assert set(per_task) == {2}  # one item, both orders
    report = (paths.reports / "ucl.md").read_text(encoding="utf-8")
    win_rates = report.split("| model | n | ")[1]  # the first table: win rates per task
    oracle = next(line for line in win_rates.splitlines() if "oracle" in line)
    assert oracle.count("— (2 unparsable)") == 23 and "— (44 unparsable)" in oracle  # 22 tasks + CC, and AVG
    assert f"cost verdicts: `oracle` {n}." in report
    csv = pd.read_csv(paths.reports / "ucl.csv", keep_default_na=False, na_values=[""])
    ours = csv[(csv.agent == "oracle") & (csv.metric == "win_rate")]
    assert ours.set_index("scope").n_unparsable["overall"] == 44 and ours.n_unparsable.notna().all()
    assert csv[csv.source == "paper"].n_unparsable.isna().all()


def test_some_unparsable_verdicts_fail_the_stage_at_0_and_pass_above_their_share(tmp_path, ucl_items, capsys):
    with FakeOpenAIServer(reply=_some_prose) as server:
        paths, params = _judge_setup(tmp_path, ucl_items, server)
        assert run_stage("ucl_judge", ucl_judge, agent_name="oracle", params_file=params, paths=paths) == 1
        verdicts = pd.read_parquet(paths.run("ucl", "oracle") / "verdicts.parquet")
        bad = int((verdicts.failure == "unparsable").sum())
        share = bad / len(verdicts)
        assert 0 < bad < len(verdicts) and verdicts.failure.isin([None, "unparsable"]).all()
        assert f"{bad} of {len(verdicts)} judge answers unparsable" in capsys.readouterr().err

        _tolerate(params, share - 0.01)  # below the share: still refused
        assert run_stage("ucl_judge", ucl_judge, agent_name="oracle", params_file=params, paths=paths) == 1
        _tolerate(params, share + 0.01)
        assert run_stage("ucl_judge", ucl_judge, agent_name="oracle", params_file=params, paths=paths) == 0
    assert run_stage("ucl_report", ucl_report, params_file=params, paths=paths) == 0
    csv = pd.read_csv(paths.reports / "ucl.csv", keep_default_na=False, na_values=[""])
    cells = csv[(csv.agent == "oracle") & (csv.metric == "win_rate") & (csv.source == "ours")].set_index("scope")
    report = (paths.reports / "ucl.md").read_text(encoding="utf-8")
    for task, rows in verdicts.groupby("task"):
        assert cells.n_unparsable[_task_id(task)] == int((rows.failure == "unparsable").sum())
    mixed = cells[(cells.n_unparsable > 0) & cells.value.notna()]
    assert len(mixed) > 0  # a task with one order judged and one unparsable: a value with its count beside it
    row = mixed.iloc[0]
    assert f"{round(row.value, 1):g} ({int(row.n_unparsable)} unparsable)" in report


def _task_id(task: str) -> str:
    from steps.ucl.tasks import TASKS

    return next(t.id for t in TASKS if t.key == task)

"""`llm.budget_usd` at the stage level: `lawbench_predict` against the fake OpenAI server with a priced model
stops sending once the cap is spent, writes the unsent items as `budget` failures and exits 1; a rerun with a
higher cap sends only those (the finished calls come from the cache) and exits 0."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from flows.kit.stage import run_stage
from flows.run import lawbench_predict
from steps.llm.pricing import pricing_for
from tests.fake_openai_server import FakeOpenAIServer
from tests.helpers import project_paths, write_lawbench_interim

pytestmark = pytest.mark.slow  # runs stages end to end: handed out before the quick modules


@pytest.fixture(scope="module")
def interim(mirror, manifest, tmp_path_factory) -> Path:
    return write_lawbench_interim(mirror, manifest, tmp_path_factory.mktemp("interim"))


def _run(tmp_path: Path, interim: Path, url: str, budget: float) -> int:
    agents = {"mini": {"model": "openai/gpt-4o-mini", "api_base": url, "concurrency": 1, "limit": 1}}
    path = tmp_path / "params.yaml"
    path.write_text(
        yaml.safe_dump({"agents": agents, "llm": {"cache_dir": str(tmp_path / "cache"), "budget_usd": budget}}),
        encoding="utf-8",
    )
    return run_stage(
        "lawbench_predict",
        lawbench_predict,
        agent_name="mini",
        setting="zero_shot",
        params_file=path,
        paths=project_paths(tmp_path, interim),
    )


def test_the_cap_ends_the_stage_cleanly_and_a_higher_cap_resumes(tmp_path, interim, capsys):
    price = pricing_for("openai/gpt-4o-mini")
    one_call = price.cost(7, len("正确答案：A"))  # the fake server: 7 prompt tokens, one token per character
    run = tmp_path / "data" / "lawbench" / "runs" / "mini" / "zero_shot"
    with FakeOpenAIServer(reply=lambda body: "正确答案：A") as server:
        assert _run(tmp_path, interim, server.url, budget=2.5 * one_call) == 1
        assert server.count == 3  # the third call reached the cap; nothing after it was sent
        err = capsys.readouterr().err
        assert "llm.budget_usd" in err and "17 of 20 model calls not sent" in err
        predictions = pd.read_parquet(run / "predictions.parquet")
        assert (predictions.failure_kind == "budget").sum() == 17 and predictions.failure_kind.isna().sum() == 3
        usage = pd.read_parquet(run / "usage.parquet")
        assert usage.cost_usd.sum() == pytest.approx(3 * one_call)

        assert _run(tmp_path, interim, server.url, budget=100 * one_call) == 0
        assert server.count == 20  # only the 17 unsent calls went out
    predictions = pd.read_parquet(run / "predictions.parquet")
    assert predictions.failure_kind.isna().all() and len(predictions) == 20

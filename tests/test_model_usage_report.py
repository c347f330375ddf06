"""Accounting rows written by a flow feed the data card's model-usage table (DuckDB SQL)."""

from __future__ import annotations

import asyncio

import duckdb
import pandas as pd

from flows.kit.config import Params
from flows.kit.models import open_door, read_usage_log, write_usage
from steps.llm import ModelConfig
from steps.sql import register_parquet_union, run_query
from tests.fake_openai_server import FakeOpenAIServer


def test_usage_rows_are_aggregated_by_model_and_purpose(tmp_path):
    params = Params.model_validate({"llm": {"cache_dir": str(tmp_path / "cache"), "max_attempts": 1}})
    with FakeOpenAIServer() as server:
        local = ModelConfig(name="local", model="hosted_vllm/test-model", api_base=server.url)
        null = ModelConfig(name="null", model="scripted/null")
        door = open_door(params, run_id="r")

        async def calls():
            await door.complete(local, [{"role": "user", "content": "a"}], purpose="agent")
            await door.complete(local, [{"role": "user", "content": "a"}], purpose="agent")  # cache hit
            server.inject(("400",))
            await door.complete(local, [{"role": "user", "content": "b"}], purpose="judge")
            await door.complete(null, [{"role": "user", "content": "c"}], purpose="agent", metadata={"scenario": "x"})

        asyncio.run(calls())
    write_usage(door, tmp_path / "run/usage.parquet")
    tracked = pd.read_parquet(tmp_path / "run/usage.parquet")
    assert len(tracked) == 4 and not {"cache_hit", "latency_s", "attempts"} & set(tracked.columns)
    logged = read_usage_log(tmp_path / "cache", tmp_path / "run/usage.parquet")
    assert logged.cache_hit.tolist().count(True) == 1 and len(logged) == 4  # the history is in the untracked log
    with duckdb.connect() as con:
        register_parquet_union(con, "model_usage", [tmp_path / "run/usage.parquet"])
        table = run_query(con, "data_model_usage").set_index(["model_name", "purpose"])
    agent = table.loc[("local", "agent")]
    # a repeat is a call like any other, but one request: the tokens are those of the request
    assert (agent.calls, agent.requests, agent.failures, agent.prompt_tokens) == (2, 1, 0, 7)
    assert "cache_hits" not in table.columns  # they depend on what ran before
    assert pd.isna(agent.cost_usd)  # no price for a self-hosted model: unknown, not zero
    judge = table.loc[("local", "judge")]
    assert (judge.calls, judge.failures, judge.failure_kinds) == (1, 1, "bad_request")
    null = table.loc[("null", "agent")]
    assert (null.cost_usd, null.scripted) == (0.0, "yes")

"""`llm.budget_usd`: the door counts what its new calls cost (litellm's prices, the server's token counts) and
sends nothing once the cap is spent; cache hits cost nothing, so a rerun with a higher cap sends only the rest."""

from __future__ import annotations

import asyncio

import pytest

from steps.llm import CallFailure, FailureKind, LLMSettings, ModelConfig, ModelDoor, Request
from steps.llm.pricing import pricing_for

PRICED = "openai/gpt-4o-mini"  # priced in litellm's local map; served here by the fake server


def _requests(model: ModelConfig, n: int) -> list[Request]:
    return [Request(model, [{"role": "user", "content": f"问题{i}"}], purpose="agent") for i in range(n)]


def _door(tmp_path, budget: float | None) -> ModelDoor:
    return ModelDoor(LLMSettings(cache_dir=str(tmp_path / "cache"), budget_usd=budget), run_id="t")


def test_the_cap_stops_further_calls_and_a_higher_cap_resumes_from_the_cache(server, tmp_path):
    model = ModelConfig(name="priced", model=PRICED, api_base=server.url, concurrency=1)
    price = pricing_for(PRICED)
    assert price is not None
    # the fake server answers `echo: 问题i` and reports 7 prompt tokens and one completion token per character
    one_call = price.cost(7, len("echo: 问题0"))
    door = _door(tmp_path, budget=1.5 * one_call)  # the second call reaches the cap
    replies = asyncio.run(door.complete_many(_requests(model, 5)))
    door.close()
    assert [r.ok for r in replies] == [True, True, False, False, False]
    assert server.count == 2  # nothing past the cap went out
    assert door.spent_usd == pytest.approx(2 * one_call)
    stopped = [r for r in replies if isinstance(r, CallFailure)]
    assert {r.kind for r in stopped} == {FailureKind.BUDGET} and all(r.attempts == 0 for r in stopped)
    assert "llm.budget_usd" in stopped[0].message
    assert [u.failure_kind for u in door.usage].count("budget") == 3
    assert sum(u.cost_usd or 0 for u in door.usage) == pytest.approx(2 * one_call)

    rerun = _door(tmp_path, budget=10 * one_call)
    replies = asyncio.run(rerun.complete_many(_requests(model, 5)))
    rerun.close()
    assert all(r.ok for r in replies) and server.count == 5  # only the three unsent calls went out
    assert [u.cache_hit for u in rerun.usage] == [True, True, False, False, False]
    assert rerun.spent_usd == pytest.approx(3 * one_call)  # hits cost nothing


def test_no_cap_and_unpriced_models_never_stop(server, tmp_path):
    unpriced = ModelConfig(name="local", model="hosted_vllm/test-model", api_base=server.url, concurrency=1)
    door = _door(tmp_path, budget=1e-12)
    replies = asyncio.run(door.complete_many(_requests(unpriced, 3)))
    assert all(r.ok for r in replies) and door.spent_usd == 0.0  # unknown price: counted as nothing
    door.close()


def test_the_budget_must_be_positive():
    with pytest.raises(ValueError, match="budget_usd"):
        LLMSettings(budget_usd=0)

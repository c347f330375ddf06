"""`llm.budget_usd`: the door counts what its new calls cost (litellm's prices, the server's token counts) and
sends nothing once the cap is spent; cache hits cost nothing, so a rerun with a higher cap sends only the rest."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from steps.llm import CallFailure, FailureKind, LLMSettings, ModelConfig, ModelDoor, Request
from steps.llm.ledger import SESSION_ENV, SpendLedger, session_env
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


def test_a_run_session_caps_its_stages_together(server, tmp_path, monkeypatch):
    """Doors of one run session (JURISFLOW_RUN_SESSION, as `make run` and `jurisflow eval` set it for the stages they
    start) count toward one cap; without a session each door caps itself; a new session starts at 0."""
    model = ModelConfig(name="priced", model=PRICED, api_base=server.url, concurrency=1)
    one_call = pricing_for(PRICED).cost(7, len("echo: 问题0"))
    monkeypatch.setenv(SESSION_ENV, "run-a")
    first, second = (
        ModelDoor(LLMSettings(cache_dir=str(tmp_path / "cache"), budget_usd=3.5 * one_call), run_id=r)
        for r in ("stage-1", "stage-2")
    )
    assert all(r.ok for r in asyncio.run(first.complete_many(_requests(model, 3))))
    replies = asyncio.run(second.complete_many(_requests(model, 6)[3:]))  # three new questions
    assert [r.ok for r in replies] == [True, False, False]  # 3 + 1 spent reach 3.5 calls' worth
    assert server.count == 4
    assert "by this run's stages" in replies[1].message
    ledger = SpendLedger(tmp_path / "cache", "run-a")
    assert ledger.spent() == pytest.approx(4 * one_call)
    rows = dict(ledger._db.execute("SELECT run_id, calls FROM spend WHERE session = 'run-a'").fetchall())
    assert rows == {"stage-1": 3, "stage-2": 1}
    for door in (first, second, ledger):
        door.close()

    monkeypatch.delenv(SESSION_ENV)  # a stage run alone: its own cap, as before
    alone = _door(tmp_path, budget=3.5 * one_call)
    assert alone.ledger is None
    replies = asyncio.run(alone.complete_many(_requests(model, 12)[6:]))
    assert [r.ok for r in replies] == [True] * 4 + [False] * 2
    alone.close()

    monkeypatch.setenv(SESSION_ENV, "run-b")  # a new run: nothing spent yet, the cache answers what was paid
    rerun = _door(tmp_path, budget=100 * one_call)
    assert all(r.ok for r in asyncio.run(rerun.complete_many(_requests(model, 12))))
    unanswered = sum(pricing_for(PRICED).cost(7, len(f"echo: 问题{i}")) for i in (4, 5, 10, 11))
    assert server.count == 12 and rerun.spent() == pytest.approx(unanswered)  # only the calls never answered
    rerun.close()


ADD = """
import sys
from pathlib import Path
from steps.llm.ledger import SpendLedger
ledger = SpendLedger(Path(sys.argv[1]), "shared")
for _ in range(200):
    ledger.add(sys.argv[2], 0.25)
ledger.close()
"""


def test_the_ledger_adds_up_writers_in_several_processes(tmp_path):
    root = Path(__file__).resolve().parents[2]
    workers = [
        subprocess.Popen([sys.executable, "-c", ADD, str(tmp_path), f"stage-{i}"], cwd=root, stderr=subprocess.PIPE)
        for i in range(3)
    ]
    errors = [w.communicate(timeout=120)[1].decode() for w in workers]
    assert [w.returncode for w in workers] == [0, 0, 0], errors
    assert SpendLedger(tmp_path, "shared").spent() == pytest.approx(3 * 200 * 0.25)
    assert SpendLedger(tmp_path, "other").spent() == 0.0


def test_a_run_sets_a_session_unless_one_is_given():
    env = session_env({"PATH": "/bin"})
    assert len(env[SESSION_ENV]) == 32 and env["PATH"] == "/bin"
    assert session_env({SESSION_ENV: "mine"})[SESSION_ENV] == "mine"
    assert session_env({})[SESSION_ENV] != env[SESSION_ENV]

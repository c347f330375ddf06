"""A stage's group task runs, read back from a real Prefect server: Pending while their calls wait for the door's one
slot, Running from their first call, then Completed (flows/kit/monitor.py: `GroupRuns`).

Three groups of one call each go through a model door that takes one call at a time to the fake OpenAI server,
which takes 0.6 s per answer. Every task run is created Pending before the first request reaches the server; the
second and third group turn Running only after the answer to the group before them came back (their calls waited
for the slot meanwhile), which the task engine's own task runs would not show (Running from the start)."""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any

import pytest

from flows.kit import progress
from flows.kit.monitor import follow_groups, gather_groups
from steps.llm import ModelConfig
from steps.llm.config import LLMSettings
from tests.fake_openai_server import FakeOpenAIServer

# e2e (`make test-e2e`): a Prefect flow run's first start costs 20-30 s of a loaded machine; `make test` still sees
# the group task runs complete and their logs (tests/test_prefect_monitoring.py)
pytestmark = pytest.mark.e2e

ANSWER_S = 0.6
KEY_ENV = "JURISFLOW_GROUPS_TEST_KEY"


class Served:
    """The fake server's reply: waits ANSWER_S and notes when each group's request came and when it was answered."""

    def __init__(self) -> None:
        self.times: dict[str, tuple[float, float]] = {}

    def __call__(self, body: dict[str, Any]) -> str:
        group = body["messages"][-1]["content"]
        came = time.time()
        time.sleep(ANSWER_S)
        self.times[group] = (came, time.time())
        return "好"


def _door(tmp_path, url: str):
    from steps.llm.door import ModelDoor

    door = ModelDoor(LLMSettings(concurrency=1, cache=False, max_attempts=1, cache_dir=str(tmp_path / "cache")))
    door.starters.append(progress.began)  # as flows/kit/models.py: open_door
    door.observers.append(progress.observe_calls)
    model = ModelConfig(name="m", model="openai/fake", api_base=url, api_key_env=KEY_ENV)
    return door, model


def _histories(api: str, flow_run_id) -> dict[str, list[tuple[str, float]]]:
    """Each task run of the flow run, by name: its states (type, time) in order."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter
    from prefect.settings import PREFECT_API_URL, temporary_settings

    async def read() -> dict[str, list[tuple[str, float]]]:
        async with get_client() as client:
            runs = await client.read_task_runs(flow_run_filter=FlowRunFilter(id={"any_": [flow_run_id]}))
            out = {}
            for run in runs:
                states = await client.read_task_run_states(run.id)
                ordered = sorted(states, key=lambda s: s.timestamp)
                out[run.name] = [(s.type.value, s.timestamp.timestamp()) for s in ordered]
            return out

    with temporary_settings({PREFECT_API_URL: api}):
        return asyncio.run(read())


def _check(histories: dict[str, list[tuple[str, float]]], served: Served, groups: list[str]) -> None:
    assert sorted(histories) == sorted(groups)
    for name, states in histories.items():
        assert [t for t, _ in states] == ["PENDING", "RUNNING", "COMPLETED"], (name, states)
    order = sorted(groups, key=lambda g: served.times[g][0])  # the order the slot served them
    first_request = served.times[order[0]][0]
    assert all(histories[g][0][1] <= first_request for g in groups)  # all queued before the first call went out
    for before, after in itertools.pairwise(order):
        running = histories[after][1][1]
        # Pending while the group before it held the slot: Running only once that answer was back
        assert running >= served.times[before][1] - 0.05, (after, running, served.times[before])
        assert running - histories[after][0][1] >= ANSWER_S * 0.9


def test_queued_groups_are_pending_until_their_first_call_starts(tmp_path, monkeypatch, prefect_api):
    from prefect import flow
    from prefect.context import FlowRunContext
    from prefect.settings import PREFECT_API_URL, temporary_settings

    monkeypatch.setenv(KEY_ENV, "sk-test")
    served = Served()
    groups = ["g1", "g2", "g3"]
    with FakeOpenAIServer(reply=served) as server:
        door, model = _door(tmp_path, server.url)

        async def ask(batch: list[str]) -> list[str]:
            return [(await door.complete(model, [{"role": "user", "content": g}], purpose="agent")).text for g in batch]

        @flow(name="groups-pending")
        def grouped() -> tuple[list[str], Any]:
            run = FlowRunContext.get().flow_run.id
            return asyncio.run(gather_groups(groups, lambda g: g, ask, label=str)), run

        with temporary_settings({PREFECT_API_URL: prefect_api}):
            answers, flow_run_id = grouped()
    assert answers == ["好"] * 3
    _check(_histories(prefect_api, flow_run_id), served, groups)


def test_a_followed_groups_first_call_is_found_by_its_instance(tmp_path, monkeypatch, prefect_api):
    """follow_groups: the work runs every item at once (here three instances, one per group, through the one-slot
    door); `members` maps each call's instance_id to its group, so each group turns Running at its own first call,
    and its task run's logs hold its closing line."""
    from prefect import flow
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import LogFilter, LogFilterFlowRunId
    from prefect.context import FlowRunContext
    from prefect.settings import PREFECT_API_URL, temporary_settings

    monkeypatch.setenv(KEY_ENV, "sk-test")
    served = Served()
    members = {"i1": "x", "i2": "y", "i3": "z"}
    with FakeOpenAIServer(reply=served) as server:
        door, model = _door(tmp_path, server.url)

        async def work(done) -> int:
            async def one(instance: str) -> None:
                messages = [{"role": "user", "content": members[instance]}]
                await door.complete(model, messages, purpose="agent", metadata={"instance_id": instance})
                done(members[instance])

            await asyncio.gather(*(one(i) for i in members))
            return len(members)

        @flow(name="groups-followed")
        def followed() -> tuple[int, Any]:
            run = FlowRunContext.get().flow_run.id
            return asyncio.run(follow_groups({"x": 1, "y": 1, "z": 1}, work, members)), run

        with temporary_settings({PREFECT_API_URL: prefect_api}):
            n, flow_run_id = followed()
    assert n == 3
    _check(_histories(prefect_api, flow_run_id), served, list(members.values()))

    async def logs() -> set[str]:
        async with get_client() as client:
            found = await client.read_logs(LogFilter(flow_run_id=LogFilterFlowRunId(any_=[flow_run_id])))
            return {log.message for log in found if log.task_run_id is not None}

    with temporary_settings({PREFECT_API_URL: prefect_api}):
        assert {"x: 1 done", "y: 1 done", "z: 1 done"} <= asyncio.run(logs())

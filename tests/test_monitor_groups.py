"""flows/kit/monitor.py: a stage's groups run as one Prefect task run each, concurrently, sharing one API client."""

from __future__ import annotations

import asyncio
import threading

import prefect.client.orchestration as orchestration
from prefect import flow

from flows.kit.monitor import gather_groups


def test_the_group_task_runs_come_back_in_order_and_share_one_api_client(monkeypatch):
    """Prefect builds an API client per task run unless one is in the run's context, and each client loads the CA
    bundle into a TLS context (30 ms of CPU): five groups, one client in the stage's thread."""
    made: list[str] = []
    init = orchestration.PrefectClient.__init__

    def counted(self, *args, **kwargs):
        if threading.current_thread() is threading.main_thread():  # not Prefect's own log and event workers
            made.append("client")
        init(self, *args, **kwargs)

    monkeypatch.setattr(orchestration.PrefectClient, "__init__", counted)

    async def double(group: list[int]) -> list[int]:
        await asyncio.sleep(0.01 * (5 - group[0]))  # the groups end out of order
        return [2 * x for x in group]

    @flow
    def grouped() -> list[int]:
        return asyncio.run(gather_groups(list(range(10)), lambda x: x % 5, double, label=lambda g: f"group {g}"))

    assert grouped() == [2 * x for x in range(10)]
    assert len(made) == 1, made

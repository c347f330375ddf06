"""A real local Prefect server records the ingest flow run and its task runs as Completed."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.helpers import one_source_project
from tests.helpers import prefect_server as start_prefect_server

# slow: runs stages end to end (handed out before the quick modules); prefect_on: what Prefect records is under test
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("prefect_on")]


@pytest.fixture(scope="module")
def prefect_server(tmp_path_factory):
    """One server for the module's tests (only the ingest test records runs)."""
    with start_prefect_server(tmp_path_factory.mktemp("server-home")) as url:
        yield url


async def _runs(url: str):
    from prefect.client.orchestration import PrefectClient

    async with PrefectClient(api=url) as client:
        flow_runs = await client.read_flow_runs()
        names = [(await client.read_flow(fr.flow_id)).name for fr in flow_runs]
        return flow_runs, names, await client.read_task_runs()


def test_ingest_run_is_recorded_by_a_real_server(tmp_path, mirror, prefect_server):
    project = tmp_path / "project"
    one_source_project(project, mirror)
    env = {**os.environ, "PREFECT_API_URL": prefect_server, "PYTHONPATH": str(ROOT)}
    env.pop("JURISFLOW_MIRROR", None)
    done = subprocess.run(
        [sys.executable, "-m", "flows.run", "ingest"], cwd=project, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "ingest: 1 tables written (693 rows)" in done.stderr.replace("\n", "")

    flow_runs, flow_names, task_runs = asyncio.run(_runs(prefect_server))
    assert flow_names == ["ingest"] and [fr.state.type.value for fr in flow_runs] == ["COMPLETED"]
    names = sorted(t.name.rsplit("-", 1)[0] for t in task_runs)
    assert names == ["build_table", "fetch_sources"]
    assert {t.state.type.value for t in task_runs} == {"COMPLETED"}
    assert all(t.flow_run_id == flow_runs[0].id for t in task_runs)


def test_a_run_server_records_runs_but_schedules_nothing(prefect_server):
    """flows/pipeline.py: prefect_server starts without the services a one-run server has no use for."""
    import httpx

    from flows.pipeline import IDLE_SERVICES

    services = httpx.get(f"{prefect_server}/admin/settings", timeout=30).json()["server"]["services"]
    assert {name: services[name.lower()]["enabled"] for name in IDLE_SERVICES} == dict.fromkeys(IDLE_SERVICES, False)
    assert services["task_run_recorder"]["enabled"] and services["event_persister"]["enabled"]  # what the UI shows

"""Shared fixtures. Prefect state goes to a throw-away PREFECT_HOME so tests never touch ~/.prefect."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

_PREFECT_HOME = tempfile.mkdtemp(prefix="jurisflow-prefect-")
os.environ.setdefault("PREFECT_HOME", _PREFECT_HOME)
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
# Flows started by tests (also in subprocesses and other working directories) may wait for the ephemeral
# API longer than Prefect's default 20 s: the test machine has 2 cores and runs much at once.
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")

ROOT = Path(__file__).resolve().parents[1]
MIRROR = Path(os.environ.get("JURISFLOW_MIRROR", ROOT.parent / "shared" / "data"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--cpu-table",
        metavar="PATH",
        default=os.environ.get("JURISFLOW_CPU_TABLE"),
        help="write each test's CPU seconds (own and waited-for children) to PATH, costliest first (tests/cputime.py)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--cpu-table"):
        from tests.cputime import CpuTable

        config.pluginmanager.register(CpuTable(Path(config.getoption("--cpu-table")).resolve()), "cputime")


@pytest.fixture(scope="session")
def mirror() -> Path:
    """The pinned source mirror; tests that need real data skip when it is absent."""
    if not (MIRROR / "MANIFEST.tsv").is_file():
        pytest.skip(f"source mirror not found at {MIRROR} (set JURISFLOW_MIRROR)")
    return MIRROR


@pytest.fixture(scope="session")
def manifest():
    from steps.sources import load_manifest

    return load_manifest(ROOT / "sources.yaml")


@pytest.fixture(scope="session")
def prefect_api(tmp_path_factory) -> str:
    """One real Prefect server for the tests that run whole pipelines: their stages report to it instead of each
    starting a temporary server of its own."""
    from tests.helpers import prefect_server

    with prefect_server(tmp_path_factory.mktemp("prefect-server")) as url:
        yield url

"""Shared fixtures. Prefect state goes to a throw-away PREFECT_HOME so tests never touch ~/.prefect."""

from __future__ import annotations

import contextlib
import os
import shutil
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
# Stage tests call a stage's body as a plain function (flows/kit/stage.py `orchestrated`): the same lines, outputs and
# exit code without a Prefect flow run, whose server round trips made up most of their time. The tests of what
# Prefect shows (runs, task states, the UI) turn it on; the session's one whole-pipeline run (`small`) leaves it off.
os.environ.setdefault("JURISFLOW_PREFECT", "off")

ROOT = Path(__file__).resolve().parents[1]
MIRROR = Path(os.environ.get("JURISFLOW_MIRROR", ROOT.parent / "shared" / "data"))


def pytest_configure(config: pytest.Config) -> None:
    shared = getattr(config, "workerinput", {}).get("prefect_api")
    if shared:  # an xdist worker: every flow it runs, in process or in a subprocess, reports to the session's server
        # instead of starting a temporary one (each such server took 5-40 s of CPU); tests that need no server at all
        # remove the variable from their stages' environment
        os.environ["PREFECT_API_URL"] = shared


# The xdist controller's Prefect server: its URL, and what stops it and removes its folder (first worker to session end)
_SHARED_SERVER: dict[str, str] = {}
_SHARED_STOP = contextlib.ExitStack()


def pytest_configure_node(node) -> None:
    """Under xdist, in the controller: one Prefect server for every worker (their `prefect_api`), started when the
    first worker starts and stopped when the session ends, instead of one per worker."""
    if "url" not in _SHARED_SERVER:
        from tests.helpers import prefect_server

        home = Path(tempfile.mkdtemp(prefix="jurisflow-prefect-server-"))
        _SHARED_STOP.callback(shutil.rmtree, home, ignore_errors=True)
        _SHARED_SERVER["url"] = _SHARED_STOP.enter_context(prefect_server(home))
    node.workerinput["prefect_api"] = _SHARED_SERVER["url"]


def pytest_unconfigure(config: pytest.Config) -> None:
    _SHARED_SERVER.pop("url", None)
    _SHARED_STOP.close()


@pytest.fixture(scope="module")
def prefect_on():
    """Stages run as Prefect flows (the default outside the test suite), here and in the processes started here, for
    a whole module (its module-scoped fixtures too): `pytestmark = pytest.mark.usefixtures("prefect_on")`."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JURISFLOW_PREFECT", "on")
        yield


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
def prefect_api(request, tmp_path_factory) -> str:
    """One real Prefect server for the tests that run whole pipelines: their stages report to it instead of each
    starting a temporary server of its own. Under xdist, the controller's (`pytest_configure_node`)."""
    shared = getattr(request.config, "workerinput", {}).get("prefect_api")
    if shared:
        yield shared
        return
    from tests.helpers import prefect_server

    with prefect_server(tmp_path_factory.mktemp("prefect-server")) as url:
        yield url


@pytest.fixture(scope="session")
def base(tmp_path_factory, mirror, prefect_api):
    """A project copy on SMALL samples after the stages that call no model and read no parameter a test changes
    (tests/helpers.py: base_run, BASE_STAGES), built once per session; the tests' and the small run's whole-pipeline
    copies start from it (`copy_project(..., base=base)`). Under xdist the workers share it: the first to need it
    builds it (LawBench's rescoring keeps both cores busy) while the other waits (tests/helpers.py: shared_base)."""
    from tests.helpers import base_run, shared_base

    if os.environ.get("PYTEST_XDIST_WORKER"):  # the workers' temporary folders share a parent for this session
        yield shared_base(tmp_path_factory.getbasetemp().parent / "base", mirror, prefect_api)
        return
    with base_run(tmp_path_factory.mktemp("base") / "jurisflow", mirror, prefect_api) as project:
        yield project


@pytest.fixture(scope="session")
def small(tmp_path_factory, mirror, prefect_api, base):
    """One whole-pipeline `dvc repro` on SMALL samples per session (tests/helpers.py: small_run; the base stages in
    `base`, the others here), shared by the tests that need a finished run: they read it, or change a copy of it."""
    from tests.helpers import small_run

    with small_run(tmp_path_factory.mktemp("small") / "jurisflow", mirror, prefect_api, base) as run:
        yield run


# Time for the session's small run (one whole-pipeline `dvc repro`; it outlasted 40 min at a load average of 10)
# and for the base stages (a few minutes), added to the timeout of the tests that use them: the first builds them.
SMALL_RUN_TIMEOUT_S = 3600
BASE_TIMEOUT_S = 900


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests sharing the session's small run or its base stages: whichever comes first builds them during its
    set-up, so their timeout covers the build. The small run's tests are all in tests/test_small_run.py: under
    `--dist loadfile` one worker takes the file and builds the run once. The modules with slow tests go first, so
    that a long module does not start last and end the session alone on one core."""
    for item in items:
        fixtures = _fixtures(item)
        extra = (SMALL_RUN_TIMEOUT_S if "small" in fixtures else 0) + (BASE_TIMEOUT_S if "base" in fixtures else 0)
        if extra:
            own = item.get_closest_marker("timeout")
            item.add_marker(pytest.mark.timeout(extra + (own.args[0] if own else 900)))
        if "small" in fixtures and item.path.name != "test_small_run.py":
            raise pytest.UsageError(f"{item.nodeid} uses the small run: move it to tests/test_small_run.py")
    slow = {item.path for item in items if item.get_closest_marker("slow") or "base" in _fixtures(item)}
    items.sort(key=lambda item: item.path not in slow)  # stable: modules stay whole, in order


def _fixtures(item: pytest.Item) -> tuple[str, ...]:
    return tuple(getattr(item, "fixturenames", ()))

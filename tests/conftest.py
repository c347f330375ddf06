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
    shared = getattr(config, "workerinput", {}).get("prefect_api")
    if shared:  # an xdist worker: every flow it runs, in process or in a subprocess, reports to the session's server
        # instead of starting a temporary one (each such server took 5-40 s of CPU); tests that need no server at all
        # remove the variable from their stages' environment
        os.environ["PREFECT_API_URL"] = shared
    if config.getoption("--cpu-table"):
        from tests.cputime import CpuTable

        config.pluginmanager.register(CpuTable(Path(config.getoption("--cpu-table")).resolve()), "cputime")


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
    url = _SHARED_SERVER.pop("url", None)
    table = config.pluginmanager.get_plugin("cputime")
    if url is not None and table is not None:  # the server's CPU is no test's: note it beside the workers' tables
        table.note(f"the workers' Prefect server: {_server_cpu(url):.1f} s CPU")
    _SHARED_STOP.close()


def _server_cpu(url: str) -> float:
    """CPU seconds of the Prefect server listening at `url` among this process's children, and of its children."""
    import psutil

    port = url.rsplit(":", 1)[1].split("/")[0]
    for proc in psutil.Process().children(recursive=True):
        try:
            if "--port" in (cmd := proc.cmdline()) and cmd[cmd.index("--port") + 1] == port:
                times = proc.cpu_times()
                return times.user + times.system + times.children_user + times.children_system
        except (psutil.Error, IndexError):
            continue
    return float("nan")


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


# The test files whose tests use the session's small run. Under pytest-xdist (`-n 2 --dist loadgroup`) they go to one
# worker (`pytest_xdist_make_scheduler` below), which builds the run once. The grouping goes by file: xdist 3.8 groups
# by a suffix it adds to each node id, which pytest 9.2's node ids no longer carry. Collection checks the list.
SMALL_RUN_USERS = (
    "tests/evaluate/test_estimate_scripted.py",
    "tests/evaluate/test_eval_command.py",
    "tests/test_pipeline_repro.py",
    "tests/test_remote_pipeline.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests sharing the session's small run or its base stages: whichever comes first builds them during its
    set-up, so their timeout covers the build. Every test using the small run is in a file of SMALL_RUN_USERS.
    Under pytest-xdist the modules with slow tests are handed out first, so that one worker does not end on a long
    test long after the other finished."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())  # every fixture the test needs, those of its fixtures too
        extra = (SMALL_RUN_TIMEOUT_S if "small" in fixtures else 0) + (BASE_TIMEOUT_S if "base" in fixtures else 0)
        if extra:
            own = item.get_closest_marker("timeout")
            item.add_marker(pytest.mark.timeout(extra + (own.args[0] if own else 900)))
        if "small" in fixtures and item.nodeid.split("::")[0] not in SMALL_RUN_USERS:
            raise pytest.UsageError(f"{item.nodeid} uses the small run: add its file to SMALL_RUN_USERS (conftest)")
    # the workers collect (a worker's own numprocesses option is unset): their order is the order tests are handed out.
    # Modules with a slow test (or that read the session's base) first: handed out whole, a 40-second module that
    # starts among the last quick ones ends the session alone on one core.
    if hasattr(config, "workerinput") or getattr(config.option, "numprocesses", None):
        slow = {item.path for item in items if item.get_closest_marker("slow") or "base" in _fixtures(item)}
        items.sort(key=lambda item: (item.path not in slow, _first(item)))  # stable: modules stay whole, in order


# The longest tests, handed out first in this order (each to a worker of its own), so that none of them starts late
# and ends the session alone: the real-model slice (about 7 min), the fault soak, the small run's group, `agents run`.
LONGEST_FIRST = (
    "tests/real/test_real_slice.py",
    "tests/test_fault_soak.py",
    *SMALL_RUN_USERS,
    "tests/evaluate/test_agents_run.py",
)


def _fixtures(item: pytest.Item) -> tuple[str, ...]:
    return tuple(getattr(item, "fixturenames", ()))


def _first(item: pytest.Item) -> int:
    name = item.nodeid.split("::")[0]
    return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """`--dist loadgroup`: xdist's group scheduler (one unit of work at a time to whichever worker is free), with the
    tests of SMALL_RUN_USERS as one unit and every other module as one unit. Whole modules, because a module-scoped
    fixture runs once per worker that takes a test of its module: handed out test by test, the fixtures that build a
    project or start an interpreter (tests/j1/envs/test_new_environment.py, tests/test_new_benchmark.py, LawBench's
    rescored predictions...) ran on all three workers, about 140 s of CPU paid twice."""
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    # Keep the collection's order (LONGEST_FIRST): by default the scheduler hands out the units with the most tests
    # first, which put LawBench's 80 quick bound checks before the real-model slice.
    config.option.loadscopereorder = False

    class ModuleUnits(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::")[0]
            return "small" if module in SMALL_RUN_USERS else module

    return ModuleUnits(config, log)

"""How `make test` hands tests to its xdist workers (tests/conftest.py: pytest_xdist_make_scheduler)."""

from __future__ import annotations

import pytest

from tests.conftest import SMALL_RUN_USERS, pytest_xdist_make_scheduler


def test_whole_modules_are_the_units_and_the_small_runs_users_are_one(pytestconfig: pytest.Config, monkeypatch):
    monkeypatch.setattr(pytestconfig.option, "dist", "loadgroup")
    monkeypatch.setattr(pytestconfig.option, "tx", ["3*popen"])  # what `-n 3` sets
    monkeypatch.setattr(pytestconfig.option, "loadscopereorder", True)  # xdist's default
    scheduler = pytest_xdist_make_scheduler(pytestconfig, None)
    scope = scheduler._split_scope
    # two tests of one module (and a parametrised one) go together: its module-scoped fixtures run once
    module = "tests/j1/envs/test_new_environment.py"
    assert scope(f"{module}::test_a") == scope(f"{module}::test_b") == scope(f"{module}::test_c[1]") == module
    assert scope("tests/test_new_benchmark.py::test_a") != scope(f"{module}::test_a")
    assert {scope(f"{name}::test_x") for name in SMALL_RUN_USERS} == {"small"}
    assert pytestconfig.option.loadscopereorder is False  # in the collection's order, the longest modules first


def test_other_distributions_keep_xdists_scheduler(pytestconfig: pytest.Config, monkeypatch):
    monkeypatch.setattr(pytestconfig.option, "dist", "load")
    assert pytest_xdist_make_scheduler(pytestconfig, None) is None

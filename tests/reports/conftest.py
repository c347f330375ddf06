"""The HTML report built once per session by the real stage flow from fixture run tables (tests/html_data.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT


@pytest.fixture(scope="session")
def fixture_report(tmp_path_factory) -> Path:
    """reports/html/ as stage `html_report` writes it from the committed report CSVs and synthetic dialogues of
    two agents (tests.html_data.write_inputs); the folder of the pages."""
    from flows.kit.stage import run_stage
    from flows.run import html_report
    from steps.paths import Paths
    from tests.html_data import write_inputs

    root = tmp_path_factory.mktemp("html-report")
    params = write_inputs(root, ROOT / "reports")
    paths = Paths(data=root / "data", reports=root / "reports")
    assert run_stage("html_report", html_report, params_file=params, paths=paths) == 0
    return root / "reports" / "html"

"""Stage j1_report on a run without any instance (e.g. no persona could be generated): no crash on the sizes."""

from __future__ import annotations

import pandas as pd

from flows.j1_report import run_info
from flows.kit.config import load_params
from tests.conftest import ROOT


def test_run_info_of_a_run_without_instances():
    info = run_info(load_params(ROOT / "params.yaml"), pd.DataFrame(columns=["agent", "scenario"]))
    assert info.sizes == {}

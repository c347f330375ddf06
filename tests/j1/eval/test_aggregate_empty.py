"""Stage j1_report on a run without any instance (e.g. no persona could be generated): no crash on the sizes."""

from __future__ import annotations

import json

import pandas as pd

from flows.kit.config import load_params
from flows.kit.paths import Paths
from steps.j1.eval.report import _sizes
from steps.j1.eval.stages import j1_agents
from tests.conftest import ROOT


def test_the_agents_of_a_run_without_instances(tmp_path):
    params = load_params(ROOT / "params.yaml").for_benchmark("j1")
    paths = Paths(data=tmp_path)
    for name in params.agents:
        paths.run("j1", name).mkdir(parents=True)
        (paths.run("j1", name) / "run.json").write_text(json.dumps({"run_id": name}), encoding="utf-8")
    agents = j1_agents(params, pd.DataFrame(columns=["agent", "scenario", "instance_id"]), paths)
    assert list(agents) == list(params.agents) and all(a.sizes == {} for a in agents.values())
    sizes, differ = _sizes(agents)
    assert [ours for _, ours, _ in sizes] == [0] * 6 and not differ
    assert _sizes({}) == ([(s, 0, paper) for s, _, paper in sizes], False)

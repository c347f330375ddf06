"""`eval` runs another agent's stale stage only when it calls no real model (flows/evaluate.py, `offline_stage`): in a
fresh clone the scripted agents' outputs do not exist, and a report needs them; a real agent's or a real judge's
stage would make calls nobody asked for."""

from __future__ import annotations

import yaml

from flows.evaluate import offline_stage
from flows.kit.config import load_params
from tests.conftest import ROOT


def _params(tmp_path, **changes):
    data = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    data["agents"]["real"] = {"model": "openai/some-model", "api_base": "http://127.0.0.1:1/v1"}
    data["runs"] = {b: [*agents, "real"] for b, agents in data["runs"].items()}
    for section, value in changes.items():
        data[section] = {**data.get(section, {}), **value} if isinstance(value, dict) else value
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return load_params(path)


def test_a_scripted_agents_stage_with_scripted_roles_is_offline(tmp_path):
    params = _params(tmp_path)
    assert offline_stage(params, "j1_simulate@null") and offline_stage(params, "lawbench_predict@oracle-zero_shot")
    assert offline_stage(params, "ucl_judge@oracle")  # judge and reference are stand-ins by default


def test_a_real_agent_a_real_role_or_a_shared_stage_is_not(tmp_path):
    params = _params(tmp_path)
    assert not offline_stage(params, "j1_simulate@real")  # a real model's calls
    assert not offline_stage(params, "lawbench_predict@real-one_shot")
    assert not offline_stage(params, "ucl_report") and not offline_stage(params, "j1_simulate@nobody")
    judged = _params(tmp_path, ucl={"judge": {"model": "openai/judge-model", "api_base": "http://127.0.0.1:1/v1"}})
    assert not offline_stage(judged, "ucl_judge@oracle")  # the oracle's verdicts would come from a real judge
    assert offline_stage(judged, "lawbench_predict@oracle-zero_shot")  # LawBench has no judge

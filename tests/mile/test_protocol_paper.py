"""`mile: {protocol: paper}` over HTTP, with a fake OpenAI-compatible server standing in for gpt-4o-2024-08-06:
every environment role (client, supervisor, stage classifier, style checker, fact blurring) is sent the paper's
snapshot with the paper's decoding for that role (spec maser-mile §2.6), run.json records it beside the paper's,
and the label names only what differs (here the turn cap and the sample size)."""

from __future__ import annotations

import json

import pytest
import yaml

from flows.kit.stage import run_stage
from flows.run import mile_simulate
from steps.mile.params import ROLES
from tests.fake_openai_server import FakeOpenAIServer
from tests.helpers import project_paths
from tests.mile.test_decoding import _env_reply, _role_of_request

pytestmark = pytest.mark.slow  # one dialogue over HTTP

PAPER_DECODING = {
    "client": {"temperature": 0.5, "top_p": 1.0, "max_tokens": 2048},
    "supervisor": {"temperature": 0.0, "max_tokens": 2048},
    "classifier": {"temperature": 0.0, "max_tokens": 1024},
    "styler": {"temperature": 0.0, "max_tokens": 1024},
    "blur": {"temperature": 0.5},  # no cap in the paper
}


def test_paper_protocol_sends_every_environment_role_to_the_papers_snapshot_and_decoding(tmp_path, interim):
    with FakeOpenAIServer(reply=_env_reply({})) as server:
        params = {
            "agents": {"oracle": {"model": "scripted/oracle"}},
            "llm": {"cache_dir": str(tmp_path / "llm"), "max_attempts": 1},
            "mile": {"protocol": "paper", "environment": {"api_base": server.url}, "sample": 1, "max_turns": 4},
        }
        (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True), encoding="utf-8")
        args = {"params_file": tmp_path / "params.yaml", "paths": project_paths(tmp_path, interim)}
        assert run_stage("mile_simulate", mile_simulate, agent_name="oracle", **args) == 0
        requests = list(server.requests)
    seen = set()
    for body in requests:
        role = _role_of_request(body)
        seen.add(role)
        assert body["model"] == "gpt-4o-2024-08-06", role
        sent = {k: body[k] for k in ("temperature", "top_p", "max_tokens", "seed") if body.get(k) is not None}
        assert sent == PAPER_DECODING[role], role
    assert seen == set(ROLES)
    run = json.loads((tmp_path / "data" / "mile" / "runs" / "oracle" / "run.json").read_text(encoding="utf-8"))
    record = run["protocol_record"]
    assert record["roles"]["environment"]["model"] == record["roles"]["environment"]["paper_model"]
    assert record["settings"]["role_decoding"] == {"value": "paper", "paper": "paper", "source": "spec maser-mile §2.6"}
    assert record["label"] == "max_turns 4, paper 15; 1 of 693 instances"
    assert all(path.startswith("mile/templates/") for path in record["prompts"]["templates"])

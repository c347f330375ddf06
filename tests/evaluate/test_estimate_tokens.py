"""The estimate's requests are the ones a run sends. An API model's id (gpt-4o-mini, priced, tokenised with
o200k_base) served by the fake server plays the agent on LawBench and UCL-Bench; the server counts prompt tokens
as OpenAI does (`chat_tokens` with the o200k_base encoding over whole strings) and the estimate's stand-in answers
as the server does. The run's usage rows and the estimate then hold the same call keys (the same prompts, dialogue
turns after the first included) and the same tokens, up to litellm's counting in 1,024-character pieces."""

from __future__ import annotations

import functools
from pathlib import Path

import pandas as pd
import pytest
import tiktoken
import yaml

from flows.estimate import estimate
from flows.kit.config import load_params
from flows.kit.paths import Paths
from flows.kit.stage import run_stage
from flows.run import lawbench_predict, ucl_simulate
from steps.sources import Fetched
from steps.tables import write_table
from steps.ucl.sources import Ucl, load_ucl
from tests.fake_openai_server import FakeOpenAIServer
from tests.helpers import write_lawbench_interim

ADVICE = "您好，建议您先收集证据，再咨询律师。如有书面合同，请一并带来。"  # never covers a UCL user's need: 3 exchanges
TASKS = ["Charge Prediction", "Legal Issue Consultation"]


@functools.cache
def _o200k() -> tiktoken.Encoding:
    import litellm.litellm_core_utils.default_encoding  # noqa: F401  (tiktoken reads the encodings litellm ships)

    return tiktoken.get_encoding("o200k_base")


def o200k(text: str) -> int:
    """Tokens of `text` by tiktoken's o200k_base, the whole string at once."""
    return len(_o200k().encode(text, disallowed_special=()))


def answer_as_the_server(request) -> str:
    return ADVICE


@pytest.fixture(scope="module")
def interim(mirror, manifest, tmp_path_factory) -> Path:
    """The interim tables `lawbench_predict` and `ucl_simulate` read."""
    folder = write_lawbench_interim(mirror, manifest, tmp_path_factory.mktemp("data") / "interim")
    ucl = load_ucl([Fetched(f, mirror / f.path) for f in manifest.for_dataset("ucl")])
    write_table(ucl, folder / "ucl.parquet", Ucl, table="ucl")
    return folder


def test_requests_and_tokens_match_a_run_against_the_fake_server(tmp_path, interim):
    with FakeOpenAIServer(reply=lambda body: ADVICE, tokens=o200k) as server:
        agents = {"mini": {"model": "openai/gpt-4o-mini", "api_base": server.url, "limit": 1}}
        doc = {"agents": agents, "llm": {"cache_dir": str(tmp_path / "cache")}, "ucl": {"tasks": TASKS}}
        path = tmp_path / "params.yaml"
        path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
        paths = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=tmp_path / "cache")
        paths.data.mkdir()
        paths.interim.symlink_to(interim)  # the module's interim tables; the runs go to data/<benchmark>/runs/mini/
        code = run_stage(
            "lawbench_predict", lawbench_predict, agent_name="mini", setting="one_shot", params_file=path, paths=paths
        )
        assert code == 0
        assert run_stage("ucl_simulate", ucl_simulate, agent_name="mini", params_file=path, paths=paths) == 0
    report = estimate(
        load_params(path), benchmarks=["lawbench", "ucl"], paths=paths, stand_ins={"agent": answer_as_the_server}
    )
    runs = {
        "lawbench_predict@mini-one_shot": paths.run("lawbench", "mini", "one_shot") / "usage.parquet",
        "ucl_simulate@mini": paths.run("ucl", "mini") / "usage.parquet",
    }
    for stage, table in runs.items():
        usage = pd.read_parquet(table)
        for role, rows in usage.groupby("purpose"):
            sent = [s for s in report.sent if s.stage == stage and s.purpose == role]
            assert sorted(s.call_key for s in sent) == sorted(rows.call_key), (stage, role)  # the same requests
            assert sum(s.output_tokens for s in sent) == rows.completion_tokens.sum()
            measured, estimated = int(rows.prompt_tokens.sum()), sum(s.input_tokens for s in sent)
            if role == "agent":
                assert abs(estimated - measured) <= 0.001 * measured, (stage, estimated, measured)
            else:  # the scripted user: one token per character on both sides
                assert estimated == measured
    ucl_agent = next(r for r in report.rows if r.stage == "ucl_simulate@mini" and r.role == "agent")
    assert ucl_agent.calls == 3 * len(TASKS)  # the user restates its need until the cap of 3 exchanges

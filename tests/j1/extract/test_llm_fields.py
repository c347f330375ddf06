"""The LLM fields over real HTTP: the door, litellm and the fake OpenAI-compatible server answering scripted text."""

from __future__ import annotations

import asyncio
import json

import pandas as pd
import pytest

from steps.j1.extract.llm_fields import extract_all, extract_fields
from steps.j1.extract.records import Provenance, assemble, cases_table, issues_table
from steps.j1.extract.schemas import Cases, ExtractionIssues
from steps.llm import LLMSettings, ModelConfig, ModelDoor
from steps.schemas import validate
from tests.fake_openai_server import FakeOpenAIServer

from .answers import answer, as_text
from .test_crosscheck import civil_case, criminal_case


class Script:
    """Answers the requests in order from a list of texts; the last one repeats."""

    def __init__(self, *texts: str):
        self.texts = list(texts)

    def __call__(self, body: dict) -> str:
        return self.texts.pop(0) if len(self.texts) > 1 else self.texts[0]


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        yield srv


@pytest.fixture
def door(tmp_path):
    settings = LLMSettings(
        backoff_base_s=0.01, backoff_max_s=0.05, timeout_s=2.0, max_attempts=3, cache_dir=str(tmp_path / "cache")
    )
    d = ModelDoor(settings, run_id="t")
    yield d
    d.close()


@pytest.fixture
def model(server) -> ModelConfig:
    return ModelConfig(name="environment", model="hosted_vllm/test-model", api_base=server.url)


def run(door, model, case, **kw):
    return asyncio.run(extract_fields(door, model, case, **kw))


def tables(case, result):
    extracted = [assemble(case, result)]
    provenance = Provenance("parser-test", "hosted_vllm/test-model", False, 1, "r")
    cases = validate(cases_table(extracted, provenance), Cases, table="cases")
    return cases.iloc[0], validate(issues_table(extracted), ExtractionIssues, table="extraction_issues")


def llm_issues(issues: pd.DataFrame) -> set[tuple[str, str]]:
    return {(r.field, r.kind) for r in issues.itertuples() if r.stage != "parser"}


def test_a_valid_answer_fills_every_field_in_one_call(server, door, model):
    server.reply = Script("<think>先找被告人</think>```json\n" + as_text(answer("criminal")) + "\n```")
    result = run(door, model, criminal_case())
    assert (result.status, result.attempts, server.count) == ("ok", 1, 1)
    row, issues = tables(criminal_case(), result)
    assert llm_issues(issues) == set()
    assert (
        row["pleas"][0]["text"] == "被告人张甲辩称其系初犯。" and row["llm_fields_source"] == "hosted_vllm/test-model"
    )
    assert door.usage[-1].purpose == "extraction" and door.usage[-1].failure_kind is None
    sent = server.requests[0]["messages"]
    assert sent[0]["role"] == "system" and "盗窃罪" in sent[1]["content"] and "pleas" in sent[1]["content"]


def test_an_answer_that_is_not_json_is_repaired_with_the_error(server, door, model):
    server.reply = Script("好的，我来整理：被告人张甲……", as_text(answer("civil")))
    result = run(door, model, civil_case())
    assert (result.status, result.attempts) == ("ok", 2)
    repair = server.requests[1]["messages"][-1]["content"]
    assert "not a JSON object" in repair and '"claims"' in repair
    assert server.requests[1]["messages"][-2] == {"role": "assistant", "content": "好的，我来整理：被告人张甲……"}


def test_missing_keys_are_asked_for_again_and_merged(server, door, model):
    first = answer("civil", claims=..., court_findings=...)
    second = {"claims": ["判令被告支付货款4万元"], "court_findings": "经审理查明，2019年原、被告签订买卖合同"}
    server.reply = Script(as_text(first), as_text(second))
    result = run(door, model, civil_case())
    assert result.status == "ok" and result.values["claims"] == ["判令被告支付货款4万元"]
    repair = server.requests[1]["messages"][-1]["content"]
    assert repair.count("missing key") == 2 and '"defence"' not in repair


def test_a_field_still_invalid_after_the_repairs_is_an_issue_and_the_others_stay(server, door, model):
    bad = answer("criminal", statutes=[{"law": "刑法", "article": "第二百六十四条"}])
    server.reply = Script(as_text(bad))
    result = run(door, model, criminal_case(), max_attempts=3)
    assert (result.status, result.attempts, server.count) == ("partial", 3, 3)
    [issue] = result.issues
    assert (issue.field, issue.kind) == ("statutes", "invalid") and "after 3 attempts" in issue.detail
    assert issue.llm_value == [{"law": "刑法", "article": "第二百六十四条"}]
    row, issues = tables(criminal_case(), result)
    assert row["court_reasoning"] and ("statutes", "invalid") in llm_issues(issues)


def test_never_json_fails_every_field_with_a_reason_and_leaves_no_silent_gap(server, door, model):
    server.reply = Script("抱歉，我无法完成。")
    result = run(door, model, civil_case(), max_attempts=2)
    assert result.status == "failed" and server.count == 2
    row, issues = tables(civil_case(), result)
    assert row["llm_status"] == "failed" and row["claims"] is None and row["rulings"]  # the parser's fields stay
    invalid = issues[issues.kind == "invalid"]
    assert set(invalid.field) == set(answer("civil")) and invalid.detail.str.contains("not a JSON object").all()


def test_a_failed_call_is_an_issue_for_every_field_never_an_empty_answer(server, door, model):
    server.inject(*[("500",)] * 3)
    result = run(door, model, criminal_case())
    assert result.status == "failed"
    row, issues = tables(criminal_case(), result)
    failed = issues[issues.kind == "call_failed"]
    assert set(failed.field) == set(answer("criminal")) and failed.detail.str.startswith("server after 3 tries").all()
    assert row["pleas"] is None and row["fine_yuan"] == 20000 and row["charges"] == ["盗窃"]
    assert door.usage[-1].failure_kind == "server"


def test_a_call_failing_in_the_repair_round_keeps_what_was_valid(server, door, model):
    server.reply = Script(as_text(answer("civil", defence=...)))
    server.inject(None, ("400",))  # the first call answers; the repair call is refused
    result = run(door, model, civil_case())
    assert result.status == "partial" and result.values["claims"]
    assert [(i.field, i.kind) for i in result.issues] == [("defence", "call_failed")]


def test_disagreements_and_ungrounded_values_from_a_real_model_keep_the_parsers_values(server, door, model):
    a = answer("criminal")
    a["defendants"][0]["fine_yuan"] = 30000
    a["defendants"][0]["charges"] = ["抢劫罪"]
    a["evidence"].append({"party": "procurator", "item": "被告人张甲的银行转账记录三份", "proves": None})
    server.reply = Script(as_text(a))
    row, issues = tables(criminal_case(), run(door, model, criminal_case()))
    assert (row["fine_yuan"], row["charges"]) == (20000, ["盗窃"])  # the parser's values
    assert [e["item"] for e in row["evidence"]] == ["被害人陈述", "监控录像"]
    cross = issues[issues.stage == "crosscheck"].set_index("field")
    assert json.loads(cross.loc["verdict.fine_yuan", "llm_value"]) == 30000
    assert json.loads(cross.loc["verdict.charges", "parser_value"]) == ["盗窃"]
    assert cross.loc["evidence.item", "kind"] == "ungrounded" and "转账记录" in cross.loc["evidence.item", "llm_value"]


def test_many_cases_run_concurrently_and_come_back_in_order(server, door, model):
    server.latency_s = 0.05
    server.reply = lambda body: as_text(
        answer("civil" if "民事裁判文书" in body["messages"][1]["content"] else "criminal")
    )
    cases = [criminal_case(), civil_case()] * 4
    done = []
    results = asyncio.run(extract_all(door, model, cases, max_attempts=2, on_done=done.append))
    assert [r.status for r in results] == ["ok"] * 8 and len(done) == 8
    assert [("claims" in r.values) for r in results] == [False, True] * 4
    assert server.max_in_flight >= 2


def test_a_model_with_constrained_output_is_sent_the_whole_answers_schema(server, door, model):
    server.reply = Script(as_text(answer("criminal")))
    constrained = model.model_copy(update={"structured_output": "json_schema"})
    result = run(door, constrained, criminal_case())
    assert (result.status, server.count) == ("ok", 1)
    schema = server.requests[0]["response_format"]["json_schema"]["schema"]
    assert set(schema["required"]) == set(schema["properties"]) == set(answer("criminal"))
    assert "response_format" not in json.dumps(run_unconstrained(server, door, model))


def run_unconstrained(server, door, model) -> dict:
    """The request sent for the same case by a model whose setting is `off`."""
    run(door, model.model_copy(update={"structured_output": "off"}), civil_case())
    return server.requests[-1]

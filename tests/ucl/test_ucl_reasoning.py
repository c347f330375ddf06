"""Issue 38 item 5 on UCL-Bench: an assistant served by a reasoning model (`<think>…</think>answer`, or the trace in
`reasoning_content`) has the same dialogues, pairwise verdicts and hint scores as one answering `answer`; its
trace, which holds the expected key items, reaches neither the simulated user nor the judge. Stage-level: the
UCL simulation (scripted user), its tables and the judge run (proxy judge), on two public items."""

from __future__ import annotations

import pandas as pd
import pytest

from steps.llm import LLMSettings, ModelConfig, ModelDoor
from steps.simulate.journal import Journal
from steps.simulate.records import RunLabel
from steps.ucl.dialogues import ucl_tables
from steps.ucl.instances import build_instances
from steps.ucl.judging import RunIds, judge_run
from steps.ucl.params import UclParams
from steps.ucl.simulation import simulate_run
from tests.reasoning_forms import FORMS, leaked, serve
from tests.ucl.conftest import ORACLE, PROXY, USER

IDS = RunIds("reasoner", "run-a", "oracle", "run-o")
PRISON, REAL_CASE = "Prison Term Prediction/1", "Real Case Consulting/0"
ANSWER = "建议您先收集证据，再咨询律师。"


def dialogues_of(items: pd.DataFrame, agent: ModelConfig, tmp_path, cache: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    door = ModelDoor(LLMSettings(cache_dir=str(tmp_path / cache)), run_id=cache)
    instances = build_instances(items, max_exchanges=2)
    dialogues = simulate_run(door, agent, USER, instances, Journal(tmp_path / f"{cache}.jsonl"))
    door.close()
    return ucl_tables(dialogues, RunLabel(f"run-{cache}", agent.name, "ucl"))


@pytest.fixture(scope="module")
def runs(ucl_items, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("reasoning")
    items = ucl_items[ucl_items.item_id.isin([PRISON, REAL_CASE])].reset_index(drop=True)
    expected = "；".join(e for i in build_instances(items, max_exchanges=2) for e in i.profiles["user"]["expects"])
    _, reference = dialogues_of(items, ORACLE, tmp, "oracle")
    out = {}
    for form in FORMS:
        with serve(form, lambda body: ANSWER, lambda body: expected) as server:
            agent = ModelConfig(name="reasoner", model="hosted_vllm/test-model", api_base=server.url)
            turns, rows = dialogues_of(items, agent, tmp, form)
            sent = list(server.requests)
        door = ModelDoor(LLMSettings(cache_dir=str(tmp / f"judge-{form}")), run_id="judge")
        verdicts, hints = judge_run(door, PROXY, UclParams(pointwise=True), items, rows, reference, IDS, protocol="t")
        door.close()
        out[form] = {"turns": turns, "rows": rows, "verdicts": verdicts, "hints": hints, "sent": sent}
    return items, reference, expected, out


def test_a_reasoning_assistant_gets_the_same_dialogues_and_verdicts(runs):
    _, _, _, by_form = runs
    plain = by_form["plain"]
    verdict_cells = ["item_id", "order", "verdict", "outcome", "value", "failure"]
    assert plain["rows"].transcript.str.contains(ANSWER).all()
    assert plain["verdicts"].failure.isna().all() and plain["hints"].value.notna().all()  # everything was judged
    for form in ("think", "field"):
        mine = by_form[form]
        assert mine["rows"].transcript.tolist() == plain["rows"].transcript.tolist(), form
        pd.testing.assert_frame_equal(mine["verdicts"][verdict_cells], plain["verdicts"][verdict_cells])
        pd.testing.assert_frame_equal(
            mine["hints"][["item_id", "value", "met"]], plain["hints"][["item_id", "value", "met"]]
        )
        said = " ".join(m["content"] for body in mine["sent"] for m in body["messages"])
        assert "<think>" not in said
        assert set(mine["turns"][mine["turns"].speaker == "assistant"].reasoning) == {runs[2]}


def test_the_trace_would_change_a_verdict(runs):
    """The check above can fail: the same dialogues with the assistant's trace in the transcript score higher."""
    items, reference, expected, by_form = runs
    rows = by_form["plain"]["rows"]
    with_trace = rows.assign(transcript=rows.transcript.str.replace(ANSWER, leaked(expected, ANSWER), regex=False))
    door = ModelDoor(LLMSettings(cache=False), run_id="leak")
    _, hints = judge_run(door, PROXY, UclParams(pointwise=True), items, with_trace, reference, IDS, protocol="t")
    assert hints.value.sum() > by_form["plain"]["hints"].value.sum()

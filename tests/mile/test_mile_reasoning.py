"""Issue 38 item 5 on MILE: a lawyer served by a reasoning model (`<think>…</think>answer`, or the trace in
`reasoning_content`) gets the same complaint and the same scores as one answering `answer`; its trace, a draft that
names the defendants the answer leaves out, reaches neither the client, the supervisor nor the judge. Stage-level:
MILE's simulation (scripted client and supervisor), its tables, the evaluation plan and the proxy judge, on one
instance."""

from __future__ import annotations

import asyncio
import json

import pandas as pd
import pytest

from steps.llm import LLMSettings, ModelConfig, ModelDoor
from steps.mile.goal import match_rows
from steps.mile.instances import build_instance
from steps.mile.oracle import reference_complaint
from steps.mile.params import MileParams
from steps.mile.parties import parse_defendants, parse_plaintiff
from steps.mile.scenario import END
from steps.simulate.journal import Journal
from tests.mile.test_bounds import _simulate_and_judge
from tests.reasoning_forms import FORMS, leaked, serve

ASK = f"您好，我已了解您的情况，下面为您起草起诉状。{END}"


@pytest.fixture(scope="module")
def runs(mile, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("reasoning")
    rows = mile.iloc[[0]].reset_index(drop=True)
    draft = reference_complaint(build_instance(next(rows.itertuples())).ground_truth)  # the trace
    complaint = "\n".join(line for line in draft.splitlines() if not line.startswith("被告"))  # the answer
    out = {}
    for form in FORMS:
        calls: list[str] = []

        def answer(body: dict, calls: list[str] = calls) -> str:
            calls.append(body["messages"][-1]["content"])
            return complaint if len(calls) > 1 else ASK  # the greeting's reply ends the talk, then the complaint

        with serve(form, answer, lambda body: draft) as server:
            agent = ModelConfig(name="reasoner", model="hosted_vllm/test-model", api_base=server.url)
            door = ModelDoor(LLMSettings(cache_dir=str(tmp / form)), run_id=form)
            journal = Journal(tmp / f"{form}.jsonl")
            scores = asyncio.run(_simulate_and_judge(mile, rows, agent, door, journal))
            journal.close()
            door.close()
            out[form] = (scores, door.usage_records(), list(server.requests))
    return rows, complaint, draft, out


def _cells(scores: pd.DataFrame) -> list:
    return scores[["instance_id", "metric", "value", "failure"]].sort_values(["metric"]).fillna("-").values.tolist()


def test_a_reasoning_lawyer_gets_the_same_complaint_scores(runs):
    _, _, draft, by_form = runs
    plain = _cells(by_form["plain"][0])
    value = {m: v for _, m, v, _ in plain}
    assert {"CLI", "DEF", "STA"} <= set(value) and value["CLI"] == 1.0 and value["DEF"] < 1.0  # no defendants
    for form in ("think", "field"):
        assert _cells(by_form[form][0]) == plain, form
        heard = json.dumps([b["messages"] for b in by_form[form][2]], ensure_ascii=False)
        defendant = next(line for line in draft.splitlines() if line.startswith("被告"))
        assert defendant not in heard and "<think>" not in heard


def test_the_trace_would_change_a_score(runs):
    """The check above can fail: the complaint read with its trace names the defendants."""
    rows, complaint, draft, _ = runs
    row = next(rows.itertuples())
    plaintiff, defendants = parse_plaintiff(row.plaintiff, row.plaintiff_type), parse_defendants(row.defendant)

    def values(text: str) -> dict:
        found = match_rows(row.instance_id, plaintiff, defendants, text, MileParams())
        return {r["metric"]: r["value"] for r in found}

    assert values(leaked(draft, complaint))["DEF"] == 1.0 > values(complaint)["DEF"]

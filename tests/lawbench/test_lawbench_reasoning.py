"""Issue 38 item 5 on LawBench: a model that reasons (`<think>…</think>answer`, or the trace in `reasoning_content`)
gets the same predictions and scores as one answering `answer`; the trace is kept in the predictions' `reasoning`
column; a reply that is only a trace is the prediction "" with outcome `empty_answer`, scored as LawBench scores an
empty generation (an abstention on 1-2). Stage-level: the request builder, the door over HTTP, the predictions
table and the stage's scoring function, on three hand-made 1-2 items."""

from __future__ import annotations

import asyncio
from typing import cast

import pandas as pd
import pytest

from steps.lawbench.metrics.proofread import LexiconFiles
from steps.lawbench.predict import build_requests, predictions_frame, with_prompts
from steps.lawbench.schemas import LawBenchRunPredictions
from steps.lawbench.stages import score_run
from steps.llm import LLMSettings, ModelConfig, ModelDoor
from steps.schemas import validate
from tests.reasoning_forms import FORMS, last_user, leaked, serve

# question -> (gold, answer, trace): the traces name other options, which would make 1-2's judge wrong if scored
ITEMS = {
    "问题一：甲的行为构成什么？": ("正确答案：B。", "正确答案：B。", "先看A，A不对。"),
    "问题二：乙应否担责？": ("正确答案：D。", "", "也许选A吧，再想想。"),  # only a trace: an empty answer
    "问题三：丙的合同是否有效？": ("正确答案：C。", "正确答案：C。", "D看起来也有道理，但是不对。"),
}
ITEMS_FRAME = with_prompts(  # the prompts as the stage builds them (all under LawBench's 2,048-token limit)
    pd.DataFrame(
        {
            "item_id": [f"zero_shot/1-2/{i}" for i in range(len(ITEMS))],
            "setting": "zero_shot",
            "task": "1-2",
            "idx": range(len(ITEMS)),
            "instruction": "请回答下面的选择题。",
            "question": list(ITEMS),
            "answer": [gold for gold, _, _ in ITEMS.values()],
        }
    ),
    2048,
)


def _question(body: dict) -> str:
    return last_user(body).split("\n", 1)[1]


def predict(form: str, tmp_path) -> pd.DataFrame:
    with serve(form, lambda b: ITEMS[_question(b)][1], lambda b: ITEMS[_question(b)][2]) as server:
        agent = ModelConfig(name="reasoner", model="hosted_vllm/test-model", api_base=server.url)
        door = ModelDoor(LLMSettings(cache_dir=str(tmp_path / form)), run_id=form)
        replies = asyncio.run(door.complete_many(build_requests(ITEMS_FRAME, agent)))
        door.close()
    return validate(predictions_frame(ITEMS_FRAME, replies, "reasoner"), LawBenchRunPredictions, table="predictions")


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, pd.DataFrame]:
    tmp = tmp_path_factory.mktemp("reasoning")
    return {form: predict(form, tmp) for form in FORMS}


def _scores(predictions: pd.DataFrame) -> list:
    agent = ModelConfig(name="reasoner", model="hosted_vllm/test-model")
    no_lexicon = cast(LexiconFiles, {})  # only task 2-1 reads the lexicon files
    return score_run(predictions, agent, "r", no_lexicon)[0][
        ["task", "score", "abstention_rate", "n", "n_failed"]
    ].values.tolist()


def test_a_reasoning_model_is_scored_on_its_answer_only(runs):
    plain = _scores(runs["plain"])
    assert plain == [["1-2", pytest.approx(2 / 3), pytest.approx(1 / 3), 3, 0]]  # B and C right, the empty abstains
    for form in ("think", "field"):
        assert _scores(runs[form]) == plain, form
        assert (
            runs[form].prediction.tolist()
            == runs["plain"].prediction.tolist()
            == ["正确答案：B。", "", "正确答案：C。"]
        )


def test_the_trace_would_change_the_score(runs):
    """The check above can fail: scored with their traces, the same replies get every item wrong."""
    with_traces = runs["plain"].assign(prediction=[leaked(t, a) for _, a, t in ITEMS.values()])
    assert _scores(with_traces) == [["1-2", 0.0, 0.0, 3, 0]]


def test_the_trace_is_kept_and_a_trace_only_reply_is_an_empty_answer(runs):
    traces = [t for _, _, t in ITEMS.values()]
    for form in ("think", "field"):
        p = runs[form]
        assert p.reasoning.tolist() == traces
        assert p.outcome.fillna("answer").tolist() == ["answer", "empty_answer", "answer"]
        assert p.failure_kind.isna().all()
    plain = runs["plain"]
    assert plain.reasoning.isna().all()
    assert plain.outcome.fillna("answer").tolist() == ["answer", "empty_answer", "answer"]  # the same empty answer

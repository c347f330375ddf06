"""Hand-built J1 cases (turn rows, deliverable, typed truth) and a judge panel whose comparisons are scripted."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import pytest

import steps.j1.eval.scripted  # noqa: F401  (registers the proxy judge with J1's kinds)
from steps.j1.eval.case import Case, Panel
from steps.j1.eval.evaluate import agent_role, evaluate_case
from steps.j1.params import J1EvalParams
from steps.judges.asking import Asked
from steps.judges.pointwise import Comparison
from steps.judges.result import JudgedBy, JudgeFailure, Judgement
from steps.llm import LLMSettings, ModelConfig, ModelDoor

PROXY = ModelConfig(name="judge", model="scripted/judge")
LABELS = {
    "judge": "审判长",
    "plaintiff_lawyer": "原告代理律师",
    "defendant_lawyer": "被告代理律师",
    "defendant": "被告人",
    "defence": "被告辩护人",
    "procurator": "公诉机关",
}


def utterance(exchange: int, speaker: str, text: str, **extra: Any) -> dict[str, Any]:
    return {
        "exchange": exchange,
        "speaker": speaker,
        "speaker_label": LABELS.get(speaker, speaker),
        "kind": "utterance",
        "text": text,
        "failure": None,
        "data": "{}",
        **extra,
    }


def check(exchange: int, topic_index: int | None, answer: str) -> dict[str, Any]:
    data = {"topic_index": topic_index, "topic": "…", "answer": answer}
    return {
        "exchange": exchange,
        "speaker": "supervisor",
        "speaker_label": "supervisor",
        "kind": "check",
        "text": answer,
        "failure": None,
        "data": json.dumps(data, ensure_ascii=False),
    }


def make_case(
    scenario: str,
    truth: Any,
    turns: list[dict],
    *,
    text: str | None = None,
    ended_by: str = "marker",
    failure: str | None = None,
    causes: list[str] | None = None,
    instance_id: str = "",
) -> Case:
    rows = [{**t, "turn_index": i} for i, t in enumerate(turns)]
    deliverable = {
        "instance_id": instance_id or f"{scenario}/test",
        "scenario": scenario,
        "deliverable": text,
        "ended_by": ended_by,
        "failure": failure,
        "forced": False,
        "failure_causes": causes or [],
    }
    return Case(deliverable["instance_id"], scenario, truth, rows, deliverable, agent_role(scenario))


@dataclass(frozen=True)
class FixedPanel(Panel):
    """Comparisons answered from `values` (by metric, e.g. "II-2/CLA"; a JudgeFailure for a failure) and kept
    in `asked`; the procedure judge is the real two-pass judge with the proxy model."""

    values: dict[str, float | JudgeFailure] = field(default_factory=dict)
    asked: dict[str, Comparison] = field(default_factory=dict)

    async def compare(self, comparison: Comparison, *, metric: str) -> Judgement:
        key = metric if metric not in self.asked else f"{metric}#{len(self.asked)}"
        self.asked[key] = comparison
        value = self.values.get(metric, 0.5)
        by = JudgedBy("test/judge", False, "pointwise@test")
        if isinstance(value, JudgeFailure):
            return by.judgement(None, [Asked(None, value, "bad answer", "garbage", 2, ())])
        return by.judgement(value, [Asked(None, None, "", "{}", 1, ())], {"score": value * 10})


@pytest.fixture
def door(tmp_path):
    d = ModelDoor(LLMSettings(cache_dir=str(tmp_path / "cache")), run_id="j1eval-tests")
    yield d
    d.close()


@pytest.fixture
def panel(door):
    def make(values: dict[str, float | JudgeFailure] | None = None) -> FixedPanel:
        return FixedPanel(door, PROXY, values=dict(values or {}))

    return make


def evaluate(case: Case, panel: Panel, options: J1EvalParams | None = None) -> dict[tuple[str, str], Any]:
    """The case's rows by (metric, component)."""
    rows = asyncio.run(evaluate_case(case, panel, options or J1EvalParams()))
    keyed = {(r.metric, r.component): r for r in rows}
    assert len(keyed) == len(rows), "a (metric, component) appears twice"
    return keyed

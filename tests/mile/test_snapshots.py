"""Rendered prompts kept as readable snapshots in tests/mile/snapshots/*.txt (judges and roles, instance 1).

A reviewer reads there exactly what each judge and role is asked; a test fails when a template drifts. After an
intended change regenerate with `JURISFLOW_UPDATE_SNAPSHOTS=1 pytest tests/mile/test_snapshots.py` and review
the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from steps.mile.goal import judge_tasks, references
from steps.mile.instances import build_instance, persona
from steps.mile.interaction import Utterance, consistency_task, interaction_tasks
from steps.mile.opening import CLIENT_GREETING, LAWYER_GREETING
from steps.mile.oracle import reference_complaint
from steps.mile.params import MileParams
from steps.mile.scenario import TEMPLATES, drafting_request
from steps.simulate.templates import render
from tests.mile.conftest import row_of

SNAPSHOTS = Path(__file__).parent / "snapshots"
DIALOGUE = [
    Utterance(0, "client", CLIENT_GREETING["person"]),
    Utterance(0, "lawyer", LAWYER_GREETING),
    Utterance(1, "client", "好的，您问吧。"),
    Utterance(1, "lawyer", "请问您的姓名是什么？"),
    Utterance(2, "client", "我叫李恩泉。"),
    Utterance(2, "lawyer", "请问您的出生日期是哪一天？"),
]


def rendered(mile) -> dict[str, str]:
    row = row_of(mile, 1)
    instance = build_instance(row)
    truth = instance.ground_truth
    complaint = reference_complaint(truth)
    goal = {
        t.metrics[next(iter(t.metrics))]: t
        for t in judge_tasks(row.instance_id, complaint, references(truth, list(row.evidence), MileParams()))
    }
    window = interaction_tasks(row.instance_id, DIALOGUE, row.less)[-1]
    consistency = consistency_task(row.instance_id, DIALOGUE, persona(row))
    supervisor = instance.profiles["supervisor"]
    prompts = {
        "judge_interaction": (window.prompt_version, window.prompt),
        "judge_section_facts": (goal["F&R"].prompt_version, goal["F&R"].prompt),
        "judge_standard": (goal["STA"].prompt_version, goal["STA"].prompt),
        "judge_professional": (goal["PROF"].prompt_version, goal["PROF"].prompt),
        "judge_consistency": (consistency.prompt_version, consistency.prompt),
        "role_client": ("client.j2", render(TEMPLATES, "client.j2", instance.profiles["client"])),
        "role_lawyer": (
            "lawyer.j2 + drafting request (eval template)",
            render(TEMPLATES, "lawyer.j2", instance.profiles["lawyer"]) + "\n\n----\n\n" + drafting_request("eval"),
        ),
        "role_supervisor_review": (
            "supervisor.j2 + review_client.j2 (plaintiff stage)",
            render(TEMPLATES, "supervisor.j2", {**supervisor, "reviewed": "client"})
            + "\n\n----\n\n"
            + render(
                TEMPLATES,
                "review_client.j2",
                {
                    "stage": "plaintiff",
                    "less": row.less,
                    "accept_phrase": "回复无误",
                    "history": "\n".join(
                        f"**{'原告' if u.speaker == 'client' else '律师'}**：{u.text}" for u in DIALOGUE
                    ),
                    "candidate": "我是1970年3月17日出生的。",
                },
            ),
        ),
    }
    return {name: f"# {name}\n# version: {version}\n\n{text}\n" for name, (version, text) in prompts.items()}


def test_prompts_match_their_snapshots(mile):
    texts = rendered(mile)
    if os.environ.get("JURISFLOW_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOTS.mkdir(exist_ok=True)
        for name, text in texts.items():
            (SNAPSHOTS / f"{name}.txt").write_text(text, encoding="utf-8")
    assert {p.stem for p in SNAPSHOTS.glob("*.txt")} == set(texts)
    for name, text in texts.items():
        assert (SNAPSHOTS / f"{name}.txt").read_text(encoding="utf-8") == text, f"{name} drifted; regenerate"


def test_the_judge_sees_the_withheld_detail_and_never_the_reference_in_the_lawyers_prompt(mile):
    texts = rendered(mile)
    assert "出生日期" in texts["judge_interaction"]
    lawyer = texts["role_lawyer"]
    assert all(v not in lawyer for v in ("李恩泉", "冯伟", "538,720", "借条"))


@pytest.mark.parametrize("name", ["judge_section_facts", "judge_standard", "judge_professional"])
def test_goal_judges_ask_for_json_with_the_papers_keys(mile, name):
    key = {"judge_section_facts": "分数", "judge_standard": "规范性", "judge_professional": "专业性"}[name]
    assert f'{{"{key}": <1到10的整数>, "解释": "<简要理由>"}}' in rendered(mile)[name]

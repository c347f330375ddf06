"""Prompt coverage: every role of every J1 scenario is told what spec j1-envs §2 and §6 list, and nothing is empty.

Each role's template is rendered for every fixture instance; every field the spec gives that role must appear
in its prompt with the instance's own value, and so must the rules' key phrases and markers. One rendered
prompt per role is kept under tests/j1/envs/snapshots/ so a reviewer can read exactly what each model is
told; a changed prompt fails until the snapshot is rewritten on purpose (UPDATE_SNAPSHOTS=1).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from steps.j1.envs.common.tracker import TEMPLATES as CHECKER_TEMPLATES
from steps.j1.envs.registry import SCENARIOS, instance_from_row
from steps.simulate.engine import Engine
from steps.simulate.templates import render

SNAPSHOTS = Path(__file__).parent / "snapshots"

# role -> (profile fields whose values the prompt must contain, phrases of its rules and markers)
SPEC: dict[str, dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "KQ": {
        "client": (
            ("occupation", "legal_role", "theme", "style", "topics"),
            ("结束对话", "目前还没有问清楚的问题", "按照清单的顺序", "每次只问一个问题", "第一人称"),
        ),
        "agent": (("legal_role", "occupation"), ("经验丰富", "耐心")),
    },
    "LC": {
        "client": (
            ("name", "background", "style", "topics"),
            ("结束对话", "目前还没有问清楚的问题", "每次只问一个问题", "不要编造"),
        ),
        "agent": ((), ("可以主动向他提问", "耐心")),
    },
    "CD": {
        "plaintiff": (
            ("basic_info", "defendant_info", "case_details", "claims", "evidences", "style"),
            ("不要编造", "不太方便透露", "记不清楚了", "相信律师", "第一人称"),
        ),
        "lawyer": (("template",), ("每一轮只问一个问题", "<询问结束>", "民事起诉状")),
    },
    "DD": {
        "defendant": (
            ("basic_info", "defence", "evidences", "style"),
            ("不要编造", "不太方便透露", "记不清楚了", "相信律师", "第一人称"),
        ),
        "lawyer": (
            ("template", "complaint", "court", "case_number"),
            ("每一轮只问一个问题", "<询问结束>", "民事答辩状"),
        ),
    },
    "CI": {
        "judge": (
            ("plaintiff_info", "defendant_info", "findings"),
            (
                "对原告说：",
                "对被告说：",
                "<结束庭审>",
                "本院认为",
                "开庭审理",
                "法庭调查",
                "法庭辩论",
                "法庭调解",
                "法庭宣判",
                "每个事项单独一轮",
                "中立",
            ),
        ),
        "plaintiff_lawyer": (
            ("client_info", "defendant_info", "facts_and_reasons", "claims", "evidences", "refute", "other_statement"),
            ("已确认", "拒绝调解", "每次只出示一份证据", "我的委托人"),
        ),
        "defendant_lawyer": (
            ("client_info", "plaintiff_info", "claims", "evidences", "refute", "other_statement"),
            ("已确认", "拒绝调解", "每次只出示一份证据", "我的委托人"),
        ),
    },
    "CR": {
        "judge": (
            ("defendant_info", "findings"),
            (
                "对被告人说：",
                "对被告辩护人说：",
                "对公诉机关说：",
                "<结束庭审>",
                "本院认为",
                "开庭审理",
                "法庭调查",
                "法庭宣判",
                "认罪认罚",
                "前科",
                "罚金",
            ),
        ),
        "defendant": (("defendant_info", "case_details", "plea"), ("不要编造", "记不清了")),
        "defence": (("client_info", "plea"), ("我的委托人", "每次只提出一个要点")),
        "procurator": (("defendant_info", "charges", "facts", "opinion", "evidence"), ("出示证据", "量刑意见")),
    },
}


def _values(value) -> list[str]:
    if value is None:
        return []  # an optional field the case does not state (court, case number, opinion …)
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _system(code: str, instance, role: str) -> str:
    """The role's system prompt as the engine renders it at the start of the dialogue."""
    engine = Engine(SCENARIOS[code], instance, None)
    if engine.scenario.tracker is not None:
        engine.scenario.tracker.start(engine)  # KQ/LC: every topic still to be asked
    return engine.messages(role)[0]["content"]


def _instances(instance_rows, code: str) -> list:
    return [instance_from_row(r) for r in instance_rows[instance_rows.scenario == code].to_dict("records")]


@pytest.mark.parametrize(("code", "role"), [(c, r) for c, roles in SPEC.items() for r in roles])
def test_every_field_and_rule_the_spec_lists_is_in_the_prompt(instance_rows, code, role):
    fields, phrases = SPEC[code][role]
    instances = _instances(instance_rows, code)
    assert instances and set(SPEC[code]) == set(SCENARIOS[code].roles) - {"supervisor"}
    for instance in instances:
        prompt = _system(code, instance, role)
        profile = instance.profiles[role]
        assert set(fields) <= set(profile), f"{role} lacks {set(fields) - set(profile)}"
        for field in fields:
            for value in _values(profile[field]):
                assert value in prompt, (instance.instance_id, role, field)
        for phrase in phrases:
            assert phrase in prompt, (instance.instance_id, role, phrase)
        assert "None" not in prompt and "{{" not in prompt


def _checker_prompt(instance) -> str:
    truth = instance.ground_truth
    topics = [{"topic": t["topic"], "kind": t["kind"]} for t in truth["topics"]]
    return render(
        CHECKER_TEMPLATES,
        "checker.j2",
        {
            "topics": topics,
            "last": {"topic": "无", "answer": "无"},
            "question": "（咨询者的话）",
            "answer": "（律师的回答）",
        },
    )


@pytest.mark.parametrize("code", ["KQ", "LC"])
def test_the_supervisor_sees_every_topic_with_its_kind_and_the_exchange(instance_rows, code):
    for instance in _instances(instance_rows, code):
        prompt = _checker_prompt(instance)
        for t in instance.ground_truth["topics"]:
            assert t["topic"] in prompt
            assert t["answer"] not in prompt or t["kind"] == "binary"  # the answers are not the checker's business
        assert all(
            p in prompt for p in ("判断题", "“是”“否”或“视情况而定”", "（咨询者的话）", "（律师的回答）", "JSON")
        )


def _snapshot_cases(instance_rows) -> list[tuple[str, str, str]]:
    out = []
    for code, roles in SPEC.items():
        instance = _instances(instance_rows, code)[0]
        out += [(f"{code}_{role}", instance.instance_id, _system(code, instance, role)) for role in roles]
        if code in ("KQ", "LC"):
            out.append((f"{code}_supervisor", instance.instance_id, _checker_prompt(instance)))
    return out


def test_one_rendered_prompt_per_role_matches_its_snapshot(instance_rows):
    update = os.environ.get("UPDATE_SNAPSHOTS") == "1"
    SNAPSHOTS.mkdir(exist_ok=True)
    stale = []
    for name, instance_id, prompt in _snapshot_cases(instance_rows):
        text = f"# {name} — rendered for {instance_id}\n\n{prompt}\n"
        path = SNAPSHOTS / f"{name}.txt"
        if update:
            path.write_text(text, encoding="utf-8")
        elif not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(name)
    assert not stale, f"prompts changed: {stale}; review them, then rerun with UPDATE_SNAPSHOTS=1"
    assert len(list(SNAPSHOTS.glob("*.txt"))) == sum(len(r) for r in SPEC.values()) + 2

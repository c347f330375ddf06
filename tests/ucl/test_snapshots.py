"""Our rendered UCL prompts (`ucl.prompts: ours`), kept as readable snapshots in tests/ucl/snapshots/*.txt.

A reviewer reads there exactly what our judges and our simulated user are asked; a test fails when a template
drifts. After an intended change, regenerate with `JURISFLOW_UPDATE_SNAPSHOTS=1 pytest tests/ucl/test_snapshots.py`
and review the diff. The released prompts (the assistant's model prompt; the user's and the pairwise judge's under
`ucl.prompts: released`) are never snapshotted: their text stays in the pinned data, and tests/ucl/test_prompts.py
checks that they reach each role as released.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from steps.judges.prompts import render as render_inline
from steps.judges.prompts import version
from steps.simulate.templates import render as render_role
from steps.ucl.cases import item_cases
from steps.ucl.hint_judge import hints_prompt, hints_version
from steps.ucl.instances import build_instances
from steps.ucl.pairs import NAME, template_source
from steps.ucl.scenario import UCL_OURS
from tests.ucl.test_dialogue import PRISON, REAL_CASE, pick

SNAPSHOTS = Path(__file__).parent / "snapshots"
FORBIDDEN = "Real Case Consulting/2"  # guidance with a forbidden item (a repealed statute)
CANDIDATE = "用户：你好，给出刑期\nAI助手：被告人马某某构成故意伤害罪，建议判处有期徒刑十个月。"
REFERENCE = "用户：你好，给出刑期\nAI助手：请问被告人是否有前科？\n用户：我再说一下我的需求：给出刑期\nAI助手：约一年。"
HINTS_DIALOGUE = "用户：你好，我的情况是这样的：……\nAI助手：可以依据《中华人民共和国民法典》起诉离婚，并申请法律援助。"


def _snapshot(what: str, prompt_version: str, prompt: str) -> str:
    return f"# {what}\n# prompt_version: {prompt_version}\n\n{prompt}\n"


def rendered(items) -> dict[str, str]:
    cases = item_cases(pick(items, PRISON, FORBIDDEN))
    pair = {**cases[PRISON].context, "answer_1": CANDIDATE, "answer_2": REFERENCE}
    instances = {
        i.instance_id: i for i in build_instances(pick(items, PRISON, REAL_CASE), max_exchanges=3, prompts="ours")
    }

    def role_prompt(item_id: str, role: str) -> str:
        inst = instances[item_id]
        context = {**inst.profiles[role], "state": {}, "max_turns": inst.max_turns}
        return render_role(UCL_OURS.templates, UCL_OURS.role(role).template, context)

    return {
        "judge_pairwise": _snapshot(
            f"pairwise judge, {PRISON}, candidate shown first",
            version(NAME, template_source()),
            render_inline(template_source(), pair, inline=True),
        ),
        "judge_hints": _snapshot(
            f"pointwise hint judge (ours), {FORBIDDEN}", hints_version(), hints_prompt(cases[FORBIDDEN], HINTS_DIALOGUE)
        ),
        "user_with_information": _snapshot(
            f"simulated user, {REAL_CASE} (the assistant lacks the information)",
            "user.j2",
            role_prompt(REAL_CASE, "user"),
        ),
        "user_need_only": _snapshot(
            f"simulated user, {PRISON} (the assistant's prompt holds the facts)", "user.j2", role_prompt(PRISON, "user")
        ),
    }


@pytest.fixture(scope="module")
def snapshots(ucl_items) -> dict[str, str]:
    texts = rendered(ucl_items)
    if os.environ.get("JURISFLOW_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOTS.mkdir(exist_ok=True)
        for name, text in texts.items():
            (SNAPSHOTS / f"{name}.txt").write_text(text, encoding="utf-8")
    return texts


@pytest.mark.parametrize("name", ["judge_pairwise", "judge_hints", "user_with_information", "user_need_only"])
def test_prompt_matches_its_snapshot(snapshots, name):
    path = SNAPSHOTS / f"{name}.txt"
    assert path.is_file(), f"no snapshot {path.name}; run with JURISFLOW_UPDATE_SNAPSHOTS=1"
    assert path.read_text(encoding="utf-8") == snapshots[name], f"{path.name} drifted; review and regenerate"


def test_every_snapshot_file_is_still_rendered(snapshots):
    assert {p.stem for p in SNAPSHOTS.glob("*.txt")} == set(snapshots)

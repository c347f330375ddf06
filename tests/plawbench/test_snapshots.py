"""The PLawBench judge prompts as readable snapshots (tests/plawbench/snapshots/*.txt): the task material, the
candidate answer and the rubric (the reference) are all visible. After an intended change regenerate with
`JURISFLOW_UPDATE_SNAPSHOTS=1 pytest tests/plawbench/test_snapshots.py` and review the diff."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from steps.judges.rubric import rubric_prompt, rubric_version
from steps.plawbench.case_rubric import parse_case_analysis
from steps.plawbench.drafting_rubric import parse_drafting
from steps.plawbench.items import rows_frame
from steps.plawbench.judging import build_rubric
from steps.plawbench.params import PlawBenchParams
from steps.plawbench.penalty_judge import penalty_prompt, penalty_version
from steps.plawbench.prompts import agent_messages, task_input
from tests.plawbench.test_judge_robustness import RUBRIC as DRAFTING_RUBRIC
from tests.plawbench.test_judge_robustness import TASK as DRAFTING_TASK

SNAPSHOTS = Path(__file__).parent / "snapshots"

CASE = SimpleNamespace(
    item_id="pca/x",
    category="case_analysis",
    scenario="个人生活",
    max_points=35.0,
    document="",
    context="某甲委托乙摄影公司拍摄婚礼录像，乙公司未经某甲同意将拍摄转包给丙公司，丙公司遗失了全部录像。",
    query="以【结论】+【案情简述】+【分析过程】+【依据法条】的逻辑回答以下问题：某甲能否主张精神损害赔偿？",
)
BLOCKS = [
    {
        "tag": "结论得分",
        "criterion": "【结论得分】\n（+5分）某甲有权主张精神损害赔偿。（若回答无权主张，扣5分）",
        "points": "5",
    },
    {
        "tag": "案情简述得分",
        "criterion": "【案情简述得分】\n（+5分）乙公司未经同意将拍摄转包给丙公司"
        "（未说明“未经同意”扣2分）\n（+5分）丙公司遗失全部录像",
        "points": "10",
    },
    {
        "tag": "分析过程得分",
        "criterion": "【分析过程得分】\n按照第一步、第二步顺序推理才可得分。\n"
        "（+5分）第一步：分析乙公司是否违约。\n（+5分）第二步：分析婚礼录像是否为具有人身意义的"
        "特定物。（未分析过错不扣分）",
        "points": "10",
    },
    {
        "tag": "法条依据得分",
        "criterion": "【依据法条得分】\n（+5分）《中华人民共和国民法典》第996条\n"
        "可替代法条：《中华人民共和国民法典》第1183条",
        "points": "5",
    },
]
CONSULTATION = SimpleNamespace(
    item_id="plc/x",
    category="consultation",
    scenario="consultation",
    max_points=9.0,
    document="",
    context="",
    query="我去年借给老同学二十万，他一直拖着不还，现在电话也不接。我手里只有微信聊天记录，他肯定是想赖账！",
)
QUESTIONS = (
    "1. 借款是哪一年哪一天交付的，是现金还是银行转账？\n2. 有没有借条或借款合同？\n"
    "3. 您还有什么没告诉我的吗？\n4. 对方是否已经归还过一部分？"
)
CANDIDATE = (
    "【结论】某甲可以主张精神损害赔偿。\n【案件事实】乙公司擅自转包，丙公司遗失录像。\n"
    "【推理过程】第一步，乙公司违约；第二步，婚礼录像具有人身意义。\n【法条依据】《民法典》第996条。"
)


def _snapshot(title: str, version: str, prompt: str) -> str:
    return f"# judge: {title}\n# prompt_version: {version}\n\n{prompt}\n"


def rendered() -> dict[str, str]:
    options = PlawBenchParams()
    case = build_rubric(CASE, rows_frame(parse_case_analysis(CASE.item_id, BLOCKS).rows), options)
    drafting = build_rubric(
        DRAFTING_TASK,
        rows_frame(parse_drafting(DRAFTING_TASK.item_id, DRAFTING_RUBRIC, DRAFTING_TASK.max_points).rows),
        options,
    )
    draft = "民事起诉状\n原告：张某……\n被告：赵某……\n诉讼请求：判令被告偿还借款本金300万元。\n此致\n昆山市人民法院"
    return {
        "judge_case_analysis": _snapshot(
            "plawbench case analysis (T2)",
            rubric_version(case),
            rubric_prompt(CANDIDATE, case, question=task_input(CASE)),
        ),
        "judge_drafting": _snapshot(
            "plawbench drafting (T3)",
            rubric_version(drafting),
            rubric_prompt(draft, drafting, question=task_input(DRAFTING_TASK)),
        ),
        "judge_consultation_penalties": _snapshot(
            "plawbench T1 penalties (opt-in, paper Table 8)",
            penalty_version(),
            penalty_prompt(QUESTIONS, question=task_input(CONSULTATION)),
        ),
        "agent_case_analysis": _snapshot(
            "(agent prompt) plawbench case analysis", "-", agent_messages(CASE, options)[0]["content"]
        ),
    }


@pytest.mark.parametrize("name", sorted(rendered()))
def test_prompt_matches_its_snapshot(name):
    text = rendered()[name]
    path = SNAPSHOTS / f"{name}.txt"
    if os.environ.get("JURISFLOW_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"no snapshot {path.name}; run with JURISFLOW_UPDATE_SNAPSHOTS=1"
    assert path.read_text(encoding="utf-8") == text, f"{path.name} drifted; review and regenerate"


def test_the_judge_sees_material_candidate_and_every_criterion():
    prompt = rendered()["judge_case_analysis"]
    assert CASE.context in prompt and CANDIDATE in prompt
    for wording in (
        "某甲有权主张精神损害赔偿",
        "丙公司遗失全部录像",
        "可替代法条：《中华人民共和国民法典》第1183条",
        "按照第一步、第二步顺序推理才可得分",
        "（若回答无权主张，扣5分）",
        "未分析过错不扣分",
    ):
        assert wording in prompt, wording
    assert prompt.index("【待评回答】") < prompt.index("【评分细则】")

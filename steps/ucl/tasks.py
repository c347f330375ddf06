"""The UCL-Bench task catalogue: the 22 paper tasks (plus the public sample's extra task), their ids, Bloom
levels, scenarios and the one-line description our prompts use.

Ids, names, Bloom levels and scenarios come from the paper (Table 1, Table 8; spec ucl-bench §1.1). The
Chinese labels and the `want` phrases are ours: no official Chinese task names are published. `want` says
what the user has and wants, without a subject, so that the user prompt reads "你{want}" and the judge prompt
"用户{want}". The public sample's `Compensation Calculation` is not one of the 22 tasks (the paper uses it only
in Table 37): it is simulated and judged like the others but kept out of every average (`extra`).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

BLOOM_LEVELS = ("Memory", "Understand", "Apply", "Analyze", "Evaluate", "Create")
SCENARIOS = ("General public", "College", "Law office", "Court", "Procuratorate")


@dataclass(frozen=True)
class Task:
    id: str  # the paper's id (1-1 … 6-6); CC for the extra task
    key: str  # `task` in the ucl table (the public sample's task_name)
    name: str  # the paper's name
    label: str  # Chinese display label [ours]
    bloom: str | None
    scenario: str | None
    want: str  # [ours], see the module docstring

    @property
    def extra(self) -> bool:
        return self.bloom is None


TASKS: tuple[Task, ...] = (
    Task(
        "1-1",
        "Article Recitation",
        "Article Recitation",
        "法条原文背诵",
        "Memory",
        "Law office",
        "记不清某一条法律条文的原文，想请 AI 助手把原文告诉自己",
    ),
    Task(
        "2-1",
        "Legal Issue Consultation",
        "Legal Issue Consultation",
        "一般性法律问题咨询",
        "Understand",
        "General public",
        "遇到了一个一般性的法律问题，想向 AI 助手咨询",
    ),
    Task(
        "2-2",
        "Judicial Interpretation",
        "Judicial Interpretation",
        "法条司法解释",
        "Understand",
        "Procuratorate",
        "对某个法律条文中的一部分拿不准，想请 AI 助手说明相关的司法解释",
    ),
    Task(
        "2-3",
        "Legal Concept Understanding",
        "Legal Concept Understanding",
        "司法考试选择题",
        "Understand",
        "College",
        "有一道司法考试选择题，想请 AI 助手作答",
    ),
    Task(
        "2-4",
        "Public Opinion Summary",
        "Public Opinion Summary",
        "涉法舆情文章摘要",
        "Understand",
        "Procuratorate",
        "有一篇涉法舆情文章，想请 AI 助手写一份摘要",
    ),
    Task(
        "2-5",
        "Judicial Summary",
        "Judicial Summary",
        "法律文书司法摘要",
        "Understand",
        "Court",
        "有一份法律文书，想请 AI 助手概括出它的司法摘要",
    ),
    Task(
        "3-1",
        "Prison Term Prediction",
        "Prison Term Prediction",
        "刑期预测",
        "Apply",
        "Court",
        "有一段案件事实，想请 AI 助手预测被告人的刑期",
    ),
    Task(
        "3-2",
        "Charge Prediction",
        "Charge Prediction",
        "罪名预测",
        "Apply",
        "Court",
        "有一份公诉机关的指控，想请 AI 助手判断被告人的罪名",
    ),
    Task(
        "3-3",
        "Accusation Prediction",
        "Accusation Prediction",
        "罪名与相关法条预测",
        "Apply",
        "Procuratorate",
        "掌握了被告人的犯罪事实，想请 AI 助手分析应当指控的罪名和相关法条",
    ),
    Task(
        "4-1",
        "Article Prediction",
        "Article Prediction",
        "案件相关法条预测",
        "Analyze",
        "Law office",
        "有一段案件事实，想请 AI 助手找出案件涉及的法律条文",
    ),
    Task(
        "4-2",
        "Dispute Focus Identification",
        "Dispute Focus Identification",
        "争议焦点识别",
        "Analyze",
        "Court",
        "正在审理一个案件，想请 AI 助手从给定的候选项中确定本案的争议焦点",
    ),
    Task(
        "4-3",
        "Real Case Consulting",
        "Real Case Consultation",
        "真实案情法律咨询",
        "Analyze",
        "General public",
        "自己遇到了一件真实的法律纠纷，想请 AI 助手出出主意",
    ),
    Task(
        "4-4",
        "Similar Case Retrieval",
        "Similar Case Retrieval",
        "类案相似度判断",
        "Analyze",
        "Law office",
        "有一个原始案件和两个有关案件，想请 AI 助手判断哪一个有关案件与原始案件更相似",
    ),
    Task(
        "4-5",
        "Legal Case Analysis",
        "Legal Case Analysis",
        "司法考试案例分析题",
        "Analyze",
        "College",
        "有一道司法考试案例分析题，想请 AI 助手作答",
    ),
    Task(
        "5-1",
        "Judicial Examination Scoring",
        "Judicial Examination Scoring",
        "司法考试主观题评分",
        "Evaluate",
        "College",
        "做了一道司法考试主观题，想请 AI 助手给自己的答案打分",
    ),
    Task(
        "5-2",
        "Judgment Document Proofreading",
        "Judgment Document Proofreading",
        "法律文书片段校对",
        "Evaluate",
        "Law office",
        "有一段法律文书，想请 AI 助手找出其中的错误并改正",
    ),
    Task(
        "6-1",
        "Legal Essay Writing",
        "Legal Essay Writing",
        "司法考试论述题写作",
        "Create",
        "College",
        "有一道司法考试论述题，想请 AI 助手作答",
    ),
    Task(
        "6-2",
        "Cross-Examination Strategy Generation",
        "Cross-Examination Strategy Generation",
        "质证意见生成",
        "Create",
        "Law office",
        "掌握了一个案件的相关证据，想请 AI 助手写出质证意见",
    ),
    Task(
        "6-3",
        "Litigation Strategy Generation",
        "Litigation Strategy Generation",
        "立法相关建议生成",
        "Create",
        "College",
        "有一部法律法规的相关材料，想请 AI 助手分析它在立法上的改进之处",
    ),
    Task(
        "6-4",
        "Judgment Document Generation",
        "Judgment Document Generation",
        "判决书裁判结果生成",
        "Create",
        "Court",
        "已经审理查明了案件事实，想请 AI 助手写出判决书的裁判结果部分",
    ),
    Task(
        "6-5",
        "Procuratorial Document Generation",
        "Procuratorial Document Generation",
        "起诉书结论部分生成",
        "Create",
        "Procuratorate",
        "掌握了一个案件的事实，想请 AI 助手写出起诉书的结论部分",
    ),
    Task(
        "6-6",
        "Lawyer Document Generation",
        "Lawyer Document Generation",
        "律师法律文书起草",
        "Create",
        "Law office",
        "想请 AI 助手起草一份法律文书",
    ),
    Task(
        "CC",
        "Compensation Calculation",
        "Compensation Calculation (not one of the 22 tasks)",
        "赔偿金额预测",
        None,
        None,
        "有一份公诉机关的指控，想请 AI 助手估算被告人应当赔偿的金额",
    ),
)

BY_KEY = {t.key: t for t in TASKS}
PAPER_TASK_IDS = tuple(t.id for t in TASKS if not t.extra)


def task_of(key: str) -> Task:
    if key not in BY_KEY:
        raise ValueError(f"unknown UCL-Bench task '{key}'; expected one of the 23 public-sample task names")
    return BY_KEY[key]


def tasks_frame() -> pd.DataFrame:
    """task key -> id, Bloom level, scenario and the extra flag (registered as `ucl_tasks` for the SQL)."""
    return pd.DataFrame(
        {
            "task": [t.key for t in TASKS],
            "task_id": [t.id for t in TASKS],
            "bloom": [t.bloom for t in TASKS],
            "scenario": [t.scenario for t in TASKS],
            "extra": [t.extra for t in TASKS],
            "position": list(range(len(TASKS))),
        }
    )

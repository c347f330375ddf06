"""The 20 LawBench tasks: id, names, cognitive level and metric (spec lawbench.md §2)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LawBenchTask:
    task_id: str
    name: str
    name_zh: str
    level: str  # Memorization | Understanding | Applying
    metric: str


LEVELS = ("Memorization", "Understanding", "Applying")

TASKS: tuple[LawBenchTask, ...] = (
    LawBenchTask("1-1", "Article Recitation", "法条背诵", "Memorization", "ROUGE-L"),
    LawBenchTask("1-2", "Knowledge QA", "知识问答", "Memorization", "Accuracy"),
    LawBenchTask("2-1", "Document Proofreading", "文件校对", "Understanding", "F0.5"),
    LawBenchTask("2-2", "Dispute Focus Identification", "纠纷焦点识别", "Understanding", "Accuracy"),
    LawBenchTask("2-3", "Marital Disputes Identification", "婚姻纠纷鉴定", "Understanding", "F1"),
    LawBenchTask("2-4", "Issue Topic Identification", "问题主题识别", "Understanding", "Accuracy"),
    LawBenchTask("2-5", "Reading Comprehension", "阅读理解", "Understanding", "rc-F1"),
    LawBenchTask("2-6", "Named-Entity Recognition", "命名实体识别", "Understanding", "soft-F1"),
    LawBenchTask("2-7", "Opinion Summarization", "舆情摘要", "Understanding", "ROUGE-L"),
    LawBenchTask("2-8", "Argument Mining", "论点挖掘", "Understanding", "Accuracy"),
    LawBenchTask("2-9", "Event Detection", "事件检测", "Understanding", "F1"),
    LawBenchTask("2-10", "Trigger Word Extraction", "触发词提取", "Understanding", "soft-F1"),
    LawBenchTask("3-1", "Fact-based Article Prediction", "法条预测(基于事实)", "Applying", "F1"),
    LawBenchTask("3-2", "Scene-based Article Prediction", "法条预测(基于场景)", "Applying", "ROUGE-L"),
    LawBenchTask("3-3", "Charge Prediction", "罪名预测", "Applying", "F1"),
    LawBenchTask("3-4", "Prison Term Prediction w/o Article", "刑期预测(无法条内容)", "Applying", "log-distance"),
    LawBenchTask("3-5", "Prison Term Prediction w/ Article", "刑期预测(给定法条内容)", "Applying", "log-distance"),
    LawBenchTask("3-6", "Case Analysis", "案例分析", "Applying", "Accuracy"),
    LawBenchTask("3-7", "Criminal Damages Calculation", "犯罪金额计算", "Applying", "Accuracy"),
    LawBenchTask("3-8", "Consultation", "咨询", "Applying", "ROUGE-L"),
)

TASK_IDS: tuple[str, ...] = tuple(t.task_id for t in TASKS)
SETTINGS: tuple[str, ...] = ("zero_shot", "one_shot")

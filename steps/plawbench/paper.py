"""The paper's published numbers (Tables 2–4) and error taxonomy (Tables 5, 20, 21), as data.

Copied from the paper (spec plawbench.md §1.3, §3.1, §4.1, §4.3); the report prints them beside ours. The
error types are the paper's; the Chinese labels are ours (what our judge prompt lets the judge choose from).
"""

from __future__ import annotations

import io
import re

import pandas as pd

# Table 3: scoring rates (%) of the paper's ten models
TABLE3 = """model,Overall,T1,T2/Conclusion,T2/Facts,T2/Reasoning,T2/Statute,T2,T3/Defendant,T3/Plaintiff,T3
Claude-Sonnet-4.5,64.10,67.26,67.53,88.41,62.95,48.44,67.37,58.80,54.28,56.54
Gemini-2.5-Pro,62.54,71.28,69.59,78.29,63.94,43.49,63.82,58.25,50.88,54.57
Gemini-3.0-Pro-Preview,65.16,65.27,71.75,78.73,64.64,45.98,64.99,65.30,65.41,65.36
GPT-4o-20240806,39.26,47.10,54.83,67.90,34.90,16.15,42.00,33.88,25.05,29.47
GPT-5-0807-Global,65.87,83.67,66.91,87.32,61.99,35.75,63.93,66.50,47.98,57.24
GPT-5.2-1211-Global,68.13,79.57,69.93,88.26,60.38,48.59,66.37,68.58,58.25,63.42
DeepSeek-V3.2,58.43,70.01,63.99,86.49,59.23,43.95,63.93,48.74,34.33,41.54
Kimi-K2,60.64,67.27,65.55,81.96,58.56,43.28,62.16,60.71,46.65,53.68
Qwen3-235b-Think,55.74,60.64,64.83,89.23,59.97,43.49,64.84,44.37,30.26,37.32
Qwen3-Max,64.75,75.76,67.52,90.97,62.75,45.10,67.17,57.43,49.33,53.38
"""

# Table 2: dataset statistics of the full (partly unreleased) benchmark
TABLE2 = """statistic,T1,T2,T3
questions,60,750,40
avg_prompt_chars,1171,692,2574
rubric_items,550,11000,900
rubric_items_avg,21,14.1,23
"""

# Table 4: judge–human agreement (Pearson / Spearman, analysis / drafting / consultation)
TABLE4 = (
    """judge,pearson_analysis,pearson_drafting,pearson_consultation,"""
    + """\
spearman_analysis,spearman_drafting,spearman_consultation
GPT-5.1-1113-Global,0.814,0.710,0.469,0.779,0.708,0.379
Qwen3-Max,0.614,0.749,0.847,0.573,0.747,0.822
Gemini-3.0-Pro-Preview,0.809,0.715,0.861,0.750,0.687,0.862
"""
)
FINAL_JUDGE = "Gemini-3.0-Pro-Preview"

# (category, paper category, paper error type, our label)
ERROR_TYPES = (
    ("consultation", "Facts & Logic", "Insufficient grasp of factual causal relationships", "事实因果关系把握不足"),
    ("consultation", "Facts & Logic", "Insufficient dismantling of contract clauses", "合同条款拆解不足"),
    ("consultation", "Facts & Logic", "Insufficient grasp of subject behavior and timing", "主体行为与时间把握不足"),
    ("consultation", "Evidence", "Ignoring chronological order due to realistic noise", "受叙述干扰忽视时间顺序"),
    ("consultation", "Evidence", "Insufficient grasp of evidence-related plots", "证据情节把握不足"),
    ("consultation", "Inquiry Focus", "Weak directivity for specific evidence types", "对具体证据类型指向性弱"),
    ("consultation", "Inquiry Focus", "Follow-up questions deviate from core focus", "追问偏离核心焦点"),
    ("consultation", "Role & Strategy", "Deviations in understanding legal concepts", "法律概念理解偏差"),
    ("consultation", "Role & Strategy", "Insufficient ability to lock onto core elements", "未能锁定核心要件"),
    ("consultation", "Role & Strategy", "Model setting issues leading to errors", "角色设定偏差"),
    ("consultation", "Role & Strategy", "Lack of procedural and strategic connection", "缺乏程序与策略衔接"),
    ("consultation", "Role & Strategy", "Poor integration in cross-domain cases", "跨领域案件整合不足"),
    ("case_analysis", "Conclusion", "Legal characterization error", "法律定性错误"),
    ("case_analysis", "Conclusion", "Incomplete conclusion", "结论不完整"),
    ("case_analysis", "Conclusion", "Validity/Time-effect error", "效力或时效判断错误"),
    ("case_analysis", "Facts", "Omission of key facts", "遗漏关键事实"),
    ("case_analysis", "Facts", "Omission of details (time/amount)", "遗漏时间金额等细节"),
    ("case_analysis", "Facts", "Bias towards one party's claim", "偏向一方陈述"),
    ("case_analysis", "Analysis", "Incorrect reasoning order", "推理顺序错误"),
    ("case_analysis", "Analysis", "Incorrect analysis focus", "分析重点偏离"),
    ("case_analysis", "Analysis", "Missing reasoning steps", "推理步骤缺失"),
    ("case_analysis", "Analysis", "Logical jumps/Non-rigorous", "逻辑跳跃不严谨"),
    ("case_analysis", "Statutes", "Missing core statutes", "遗漏核心法条"),
    ("case_analysis", "Statutes", "Incorrect version (Old/Repealed)", "引用已废止或旧版法条"),
    ("case_analysis", "Statutes", "Correct citation, incorrect content", "条文号正确但内容错误"),
    ("case_analysis", "Statutes", "Incorrect citation, correct content", "内容正确但条文号错误"),
    ("case_analysis", "Statutes", "Improper application (General vs Special)", "一般法与特别法适用不当"),
    ("drafting", "Legal Application", "Inaccurate legal application (timeliness/relevance)", "法律适用不准确"),
    ("drafting", "Procedural Review", "Subject suitability error (blind compliance)", "主体适格错误（盲从当事人）"),
    ("drafting", "Procedural Review", "Insufficient sensitivity to jurisdiction rules", "管辖规则把握不足"),
    ("drafting", "Substantive Review", "Insufficient judgment of claim reasonableness", "诉求合理性审查不足"),
    ("drafting", "Substantive Review", "Lack of review on claimed amounts", "未审查主张金额"),
    ("drafting", "Drafting Standards", "Unclear fact summarization", "事实归纳不清"),
    ("drafting", "Drafting Standards", "Failure to respond point-by-point (Defense)", "未逐点回应（答辩）"),
)


def table3() -> pd.DataFrame:
    return pd.read_csv(io.StringIO(TABLE3))


def table3_long() -> pd.DataFrame:
    """Table 3 as rows (model, metric, value in [0, 1])."""
    wide = table3()
    long = wide.melt(id_vars="model", var_name="metric", value_name="value")
    return long.assign(value=long.value / 100)


def table2() -> pd.DataFrame:
    return pd.read_csv(io.StringIO(TABLE2))


def table4() -> pd.DataFrame:
    return pd.read_csv(io.StringIO(TABLE4))


def error_types() -> pd.DataFrame:
    return pd.DataFrame(ERROR_TYPES, columns=["category", "paper_category", "paper_error_type", "label"])


def error_labels(category: str) -> tuple[str, ...]:
    return tuple(label for cat, _, _, label in ERROR_TYPES if cat == category)


def name_key(name: str) -> str:
    """`openai/gpt-4o-2024-08-06` and `GPT-4o-20240806` -> `gpt4o20240806` (provider prefix and punctuation
    dropped), to find the paper's row for a model of the same name."""
    return re.sub(r"[^0-9a-z]", "", name.split("/")[-1].lower())


def paper_model_for(agent: str, model: str, explicit: dict[str, str]) -> str | None:
    """The paper's model name for an agent: `explicit` (params) first, else an exact name-key match."""
    if agent in explicit:
        return explicit[agent]
    keys = {name_key(m): m for m in table3().model}
    return keys.get(name_key(model)) or keys.get(name_key(agent))

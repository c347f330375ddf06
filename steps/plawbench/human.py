"""PLawBench's judge against human labels (paper Table 4, App. F.1; spec plawbench): Pearson's r and Spearman's ρ
against the expert mean per task (case analysis, drafting, consultation), for the three judges of the paper's
pilot (it chose Gemini-3.0-Pro-Preview). A human score is the task's score in points of 100; only the single-turn
answers are compared (the paper's; the multi-turn consultation is ours)."""

from steps.reports.human_labels import HumanStudy, PaperFigure

TABLE_4 = {  # judge → (Pearson, Spearman) per task
    "GPT-5.1-1113-Global": {"analysis": (0.814, 0.779), "drafting": (0.710, 0.708), "consultation": (0.469, 0.379)},
    "Qwen3-Max": {"analysis": (0.614, 0.573), "drafting": (0.749, 0.747), "consultation": (0.847, 0.822)},
    "Gemini-3.0-Pro-Preview": {"analysis": (0.809, 0.750), "drafting": (0.715, 0.687), "consultation": (0.861, 0.862)},
}

STUDY = HumanStudy(
    table="judgements",
    item="item_id",
    statistic="correlation",
    score_max=100,
    task="category",
    tasks={"case_analysis": "analysis", "drafting": "drafting", "consultation": "consultation"},
    rows={"variant": "single"},
    source="PLawBench Table 4: judge against the expert mean, per task",
    paper=tuple(
        PaperFigure(statistic, pair[i], judge, task)
        for judge, tasks in TABLE_4.items()
        for task, pair in tasks.items()
        for i, statistic in enumerate(("Pearson", "Spearman"))
    ),
)

"""UCL-Bench's judge against human labels (paper §4.3, App. E.2, Fig. 12; spec ucl-bench §4.4): agreement of the
verdicts with the majority of three annotators, with and without ties, and the annotators' own agreement. A human
score is the verdict for the agent's dialogue against the reference's: 1 better, 0.5 a tie, 0 worse."""

from steps.reports.human_labels import HUMAN_HUMAN, HumanStudy, PaperFigure

STUDY = HumanStudy(
    table="verdicts",
    item="item_id",
    statistic="agreement",
    score_max=1,
    source="UCL-Bench Fig. 12: GPT-4 vs the human majority; human vs human",
    paper=(
        PaperFigure("agreement with ties %", 63.4, "GPT-4"),
        PaperFigure("agreement without ties %", 81.1, "GPT-4"),
        PaperFigure("agreement with ties %", 60.7, HUMAN_HUMAN),
        PaperFigure("agreement without ties %", 80.1, HUMAN_HUMAN),
    ),
)

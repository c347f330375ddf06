"""J1-EVAL's judge against human labels (paper §4.4, Fig. 6–7; spec j1-envs §7.12): the mean difference human −
GPT-4o and the share of cases within 1 σ, on the 0–100 scale (the 0–10 judge scale × 10, spec §9.3 item 21: the
paper does not state its scale). Human scores are given on the pointwise judge's 0–10 scale."""

from steps.reports.human_labels import HumanStudy, PaperFigure

STUDY = HumanStudy(
    table="scores",
    item="instance_id",
    statistic="difference",
    score_max=10,
    unit_scale=100,
    source="J1-EVAL §4.4, Fig. 6–7: human − GPT-4o",
    paper=(
        PaperFigure("mean difference (human − judge)", 0.03, "GPT-4o"),
        PaperFigure("σ of the difference", 3.32, "GPT-4o"),
        PaperFigure("within 1 σ %", 78.4, "GPT-4o"),
    ),
)

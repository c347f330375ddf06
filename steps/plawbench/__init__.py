"""PLawBench (spec plawbench.md): rubrics as data, prompts for the models under test, a multi-turn
consultation variant (ours), judging item by item with the rubric judge, and the paper's tables.

Modules: `rubrics` (with `case_rubric`, `consultation_rubric`, `drafting_rubric`, `marks`, `sequence`),
`prompts` + `templates/`, `predict`, `dialogue`, `scripted`, `judging`, `questions`, `paper`, `report`; the stage
bodies in `stages` (declared in `benchmark`).
"""

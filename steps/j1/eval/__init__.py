"""J1-EVAL: every instance of a J1 run scored on its scenario's metrics (rule metrics and LLM judges), and the
paper-style tables built from the scores (spec j1-envs §5, §7).

`evaluate.build_cases` + `evaluate.evaluate_run` are the judge stage's steps; `report` renders the tables the
report stage's SQL computes. Nothing is imported here, so that `steps.j1.eval.schemas` loads alone.
"""

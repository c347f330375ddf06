"""MASER / MILE (Yue et al., NAACL 2025 Findings; spec maser-mile): complaint drafting as a supervised
client–lawyer simulation, and its evaluation.

- protocol: `scenario` (the Scenario value and its options), `opening` (the fixed turn 0), `supervisor` (the
  stage-aware supervisor on `steps.simulate.review`), `instances` (MILE rows → engine instances, the sample);
- offline models: `scripted` (client and supervisor), `oracle` (the lawyer that bounds the metrics from above),
  `proxy` (the judge's deterministic proxies), with `cues` (what a question asks about);
- evaluation: `parties` and `matching` (CLI, DEF), `sections` (the complaint's labelled sections), `goal`,
  `interaction`, `judging` (judge tasks and score rows), `evaluate` (everything to score in a run);
- outputs: `frames` (run tables), `report` and `published` (reports/mile.md|csv), `export` (SFT JSON Lines).
"""

"""J1-ENVS / J1-EVAL as a benchmark: its section of params.yaml (`params.py`); its environments are under
steps/j1/envs/ (one folder each)."""

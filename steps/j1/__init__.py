"""J1-ENVS / J1-EVAL as a benchmark: its section of params.yaml (`params.py`) and its environments by code."""

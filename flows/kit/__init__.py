"""The flow kit: what every stage's flow uses, so that a flow holds only what its stage does.

- `config`: params.yaml typed once (`Params`: the shared sections, and each benchmark's own section from
  `steps/<benchmark>/params.py`).
- `paths`: where every stage reads and writes (`Paths`), and paths built from configuration (`safe_child`).
- `runs`: a run's identity (`run_spec`, `run_id`), its `run.json` written last, and read back as a `RunRecord`.
- `models`: a model session (`model_session`: the door for a run id, an optional resume journal, the usage
  table and the response-cache shard written on success, the door closed), and `check_calls`, which ends a stage
  whose calls failed.
- `call_cache`: the response-cache shards DVC carries (written beside each usage table; read under DVC).
- `tables`: validated Parquet tables and atomic writes.
- `stage`: running a flow as a stage (`stage_flow`, `run_stage`, `main`: its progress, one summary line or one error
  line, then its closing line of counts).
- `stages`: the table of stages (dvc.yaml), from which the `jurisflow` stage commands are made.
- `monitor`, `progress`, `server_guard`: what the Prefect UI (run names and tags, task runs per group, artifacts,
  Crashed runs) and the terminal (progress per loop and group, calls, tokens, ETA) show, and no stray server.
"""

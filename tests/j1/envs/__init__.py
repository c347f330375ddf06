import os

# Flows start an ephemeral Prefect server; on a busy shared machine it needs longer than the default 20 s.
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")

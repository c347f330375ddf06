"""Prefect flows, one per DVC stage: read inputs, call steps as tasks, validate, write.

Prefect's anonymous usage reporting is switched off for every process that imports this package (each stage's
`python -m flows.<stage>` and the `jurisflow` command) before Prefect is first imported: the client's first-run
telemetry notice is governed only by the `DO_NOT_TRACK` variable, the server's by the setting prefect.toml also
holds (repeated here so that it applies whatever the working directory). A value set outside wins.
"""

import os

os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")

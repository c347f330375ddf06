"""Stage `ucl_reference`: the simulated user consults the reference model (`ucl.reference`) on every UCL-Bench
item; every agent's dialogues are judged against these.

dvc.yaml → this flow → flows/ucl_dialogues.py (shared with `ucl_simulate`) → steps.ucl, steps.simulate. Writes
data/ucl/reference/{turns,dialogues,usage}.parquet and run.json; resumable from its journal.
"""

from __future__ import annotations

from pathlib import Path

from flows.kit.config import PARAMS_FILE, load_params
from flows.kit.paths import PATHS, Paths
from flows.kit.stage import main, stage_flow
from flows.ucl_dialogues import consult
from steps.ucl.params import UclParams


@stage_flow
def ucl_reference(params_file: Path = PARAMS_FILE, paths: Paths = PATHS) -> str:
    """The simulated user consults the reference model on every item (`ucl.limit` applies)."""
    params = load_params(params_file)
    ucl = params.section(UclParams)
    reference = ucl.reference.resolve_reference()
    return consult(params, reference, "reference", paths.reference("ucl"), "reference", ucl.limit, paths)


if __name__ == "__main__":
    main(ucl_reference)

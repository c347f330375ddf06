"""Stage `ucl_simulate` (one per agent): the simulated user consults the agent on every UCL-Bench item.

dvc.yaml → this flow → flows/ucl_dialogues.py (shared with `ucl_reference`) → steps.ucl, steps.simulate. Writes
data/ucl/runs/<agent>/{turns,dialogues,usage}.parquet and run.json; resumable from its journal.
"""

from __future__ import annotations

from pathlib import Path

from flows.kit.config import PARAMS_FILE, load_params
from flows.kit.paths import PATHS, Paths
from flows.kit.stage import main, stage_flow
from flows.ucl_dialogues import consult


@stage_flow
def ucl_simulate(agent_name: str, params_file: Path = PARAMS_FILE, paths: Paths = PATHS) -> str:
    """The simulated user consults one agent on every item (the agent's own limit applies)."""
    params = load_params(params_file)
    agent = params.agent(agent_name)
    run_dir = paths.run("ucl", agent_name)
    return consult(params, agent, "agent", run_dir, agent_name, params.limit_for(agent_name, "ucl"), paths)


if __name__ == "__main__":
    main(ucl_simulate)

"""Orchestration: every DVC stage's Prefect flow (flows/run.py, made from its declaration), the pipeline, the CLI.

Importing this package does two things first, before any flow module (or Prefect) is imported:

- **The project's interpreter, whatever the PATH.** Every stage in dvc.yaml runs `python -m flows.run <stage>`, so
  `python` is whichever one the shell finds first. When that interpreter lacks the project's dependencies (e.g.
  `.venv/bin/dvc repro` from a shell whose PATH does not hold `.venv/bin`), the command is run again, same
  arguments, with the project's `.venv/bin/python`; without a `.venv` it stops with one line saying how to install.
- **No Prefect telemetry.** Prefect's anonymous usage reporting is switched off: the client's first-run notice is
  governed only by the `DO_NOT_TRACK` variable, the server's by the setting prefect.toml also holds (repeated here
  so that it applies whatever the working directory). A value set outside wins.
"""

import os
import sys
from importlib.util import find_spec
from pathlib import Path

_VENV_PYTHON = Path(__file__).resolve().parents[1] / ".venv" / "bin" / "python"
_REEXEC = "JURISFLOW_REEXEC"  # set in the re-run: never re-run twice


def _use_project_interpreter() -> None:
    if find_spec("prefect") is not None and find_spec("pandas") is not None:
        return  # this interpreter has the project's dependencies
    argv = getattr(sys, "orig_argv", None) or []
    if "-m" not in argv:  # imported, not run as `python -m flows.<stage>`: let the import fail as it will
        return
    if _VENV_PYTHON.is_file() and not os.environ.get(_REEXEC):
        os.environ[_REEXEC] = "1"
        os.execv(_VENV_PYTHON, [str(_VENV_PYTHON), *argv[1:]])
    sys.exit(
        f"error: {sys.executable} lacks jurisflow's dependencies (prefect, pandas) and there is no "
        f"{_VENV_PYTHON}; run `make install`, or run the stage with the interpreter that has them"
    )


_use_project_interpreter()
os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")

"""`dvc` as the pipeline's commands run it: the DVC of this installation (beside this interpreter), whatever the
PATH holds."""

from __future__ import annotations

import sys
from pathlib import Path


def command(*args: str) -> list[str]:
    """The command line of `dvc ARGS` with this installation's DVC."""
    return [str(Path(sys.executable).parent / "dvc"), *args]

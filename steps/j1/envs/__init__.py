"""J1-ENVS: one folder per environment (`<code>/env.py` registers it, see `environment.py` and `catalog.py`) and
what they share (`j1/`).

`known_codes` reads the codes from the folders on disk without importing them: params validation and the score
schemas need the known codes, and every stage loads those, so it stays light.
"""

from __future__ import annotations

from pathlib import Path


def known_codes() -> list[str]:
    """The codes of the environment folders (a package under steps/j1/envs/ with an `env.py`), sorted."""
    return sorted(
        folder.name.upper()
        for base in __path__
        for folder in Path(base).iterdir()
        if (folder / "__init__.py").is_file() and (folder / "env.py").is_file()
    )

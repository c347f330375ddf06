"""jurisflow's domain steps: plain functions over DataFrames and dataclasses (no Prefect, no fixed paths).

The benchmarks are the packages here that register one (`<benchmark>/benchmark.py`, see `registry.py` and
`benchmarks.py`). `known_benchmarks` reads their names from the folders on disk without importing them: the run
tables' schema, which every dialogue stage loads, checks names against it, so it stays light.
"""

from pathlib import Path


def known_benchmarks() -> list[str]:
    """The benchmark folders (a package under steps/, every path the package spans, with a `benchmark.py`)."""
    return sorted(
        folder.name
        for base in __path__
        for folder in Path(base).iterdir()
        if (folder / "__init__.py").is_file() and (folder / "benchmark.py").is_file()
    )

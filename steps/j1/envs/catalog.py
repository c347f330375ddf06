"""The J1 environments, found on disk: every folder `steps/j1/envs/<code>/` with an `env.py` declaring `ENV`.

Definitions only (protocols, builders, models), without the scripted policies, so that readers such as
`jurisflow show` load no model code; `registry` adds the policies. The lists other layers need are derived here:
the codes in the paper's order, the paper's sizes, the protocols by code, and the table the SQL joins.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

import pandas as pd

import steps.j1.envs
from steps.j1.envs.environment import Environment
from steps.simulate import Scenario


def env_module(folder: str) -> str:
    return f"steps.j1.envs.{folder}.env"


def environment_folders() -> list[str]:
    """The packages under steps/j1/envs/ (every path the package spans) that declare an environment."""
    return sorted(
        info.name
        for info in pkgutil.iter_modules(steps.j1.envs.__path__)
        if info.ispkg and importlib.util.find_spec(env_module(info.name)) is not None
    )


@cache
def environments() -> dict[str, Environment]:
    """Every registered environment by code, in the paper's order (`position`)."""
    found = []
    for folder in environment_folders():
        env = importlib.import_module(env_module(folder)).ENV
        if not isinstance(env, Environment) or env.code != folder.upper():
            raise ValueError(f"steps/j1/envs/{folder}/env.py: ENV must be the Environment of {folder.upper()}")
        found.append(env)
    return {e.code: e for e in sorted(found, key=lambda e: (e.position, e.code))}


def environment(code: str) -> Environment:
    try:
        return environments()[code]
    except KeyError:
        raise KeyError(f"unknown J1 environment {code!r}; known: {', '.join(environments())}") from None


def codes() -> tuple[str, ...]:
    """The environments' codes in the paper's order."""
    return tuple(environments())


def paper_sizes() -> dict[str, int]:
    """Instances per environment in the paper (J1 Table 5), in its order."""
    return {c: e.paper_size for c, e in environments().items()}


def instance_sizes(sizes: str | Mapping[str, int | None]) -> dict[str, int | None]:
    """Scenario → instances wanted (`j1.instances.sizes`: "paper" for J1's Table 5), in the paper's order."""
    wanted: Mapping[str, int | None] = paper_sizes() if sizes == "paper" else sizes  # type: ignore[assignment]
    return {s: wanted[s] for s in codes() if s in wanted}


class _Scenarios(Mapping[str, Scenario]):
    """The protocols by code, read from the registrations each time (a registration added later is seen)."""

    def __getitem__(self, code: str) -> Scenario:
        return environments()[code].scenario

    def __iter__(self) -> Iterator[str]:
        return iter(environments())

    def __len__(self) -> int:
        return len(environments())


SCENARIOS: Mapping[str, Scenario] = _Scenarios()


def environment_table() -> pd.DataFrame:
    """One row per environment for SQL (registered as `environments`): scenario, position (1 = the paper's
    first), name, paper_size, max_turns, population, evaluator, court."""
    return pd.DataFrame(
        [
            (c, i, e.name, e.paper_size, e.max_turns, e.population, e.evaluator, e.court)
            for i, (c, e) in enumerate(environments().items(), 1)
        ],
        columns=["scenario", "position", "name", "paper_size", "max_turns", "population", "evaluator", "court"],
    )


def metric_table() -> pd.DataFrame:
    """One row per (environment, metric) for SQL (registered as `environment_metrics`): scenario, metric, and
    the average it counts in (AVG_OO, AVG_PO, or None)."""
    rows = []
    for c, e in environments().items():
        for m in e.metrics:
            average = "AVG_OO" if m in e.outcome else "AVG_PO" if m in e.process else None
            rows.append((c, m, average))
    return pd.DataFrame(rows, columns=["scenario", "metric", "average"])


def register_environments(con: Any) -> None:
    """Register the registrations with a DuckDB connection: tables `environments` and `environment_metrics`, which
    the SQL joins instead of spelling out codes."""
    con.register("environments", environment_table())
    con.register("environment_metrics", metric_table())

"""The sections of params.yaml as steps receive them: frozen pydantic models.

Each benchmark owns its section: `steps/<benchmark>/params.py` defines it and names it `SECTION` (a subclass of
`BenchmarkSection`), and flows/kit/config.py composes every such section into `Params` under the benchmark's name.
Steps take their own section (or a part of it) as an argument; no step sees another benchmark's.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict


class Section(BaseModel):
    """A section (or a part of one) of params.yaml: validated once, frozen, unknown keys rejected; an error's text
    never repeats the value refused (a key pasted where the name of its variable belongs)."""

    model_config = ConfigDict(frozen=True, extra="forbid", hide_input_in_errors=True)


class BenchmarkSection(Section):
    """A benchmark's section. The two hooks let `Params` apply the section where it meets the shared ones."""

    def shared_limit(self) -> int | None:
        """The benchmark's own cap on the units it sends every agent (None: none); an agent's `limit` and this,
        the smaller, is the effective one."""
        return None

    def check_agents(self, agents: Sequence[str]) -> None:
        """Checks against the names of the agents taking part in the benchmark (raise ValueError); `Params`
        runs them when params.yaml loads, so no flow has to remember them."""


def check_subset(value: list[str] | None) -> list[str] | None:
    """A non-empty list of distinct names (None: all of them). The stage that reads the data checks the names."""
    if value is not None and (not value or len(set(value)) != len(value)):
        raise ValueError("an empty or repeating list; give distinct names, or null for all")
    return value

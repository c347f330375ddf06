"""Who and what produced a report's numbers: `AgentInfo` per agent, `RunInfo` for the report's setting.

Both are built once, by the report flows, from params.yaml and each run's `run.json` (`flows/reporting.py`); every
benchmark's report reads them, and the figures it computes itself (sizes, failed calls) come from its tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from steps.reports.labels import agent_label


@dataclass(frozen=True)
class AgentInfo:
    """A configured agent in one benchmark: its model, the paper model it corresponds to, and its run."""

    name: str
    model: str
    scripted: bool
    paper_model: str | None = None  # agents.<name>.paper_model, else a paper model of the same name
    run_id: str | None = None  # run.json `run_id` (None: no run, or several runs as LawBench's two settings)
    limit: int | None = None  # run.json `limit` (the largest of its runs'): the agent's rows say `[limit N]`
    run: Mapping[str, Any] = field(default_factory=dict)  # run.json as recorded (decoding, options …)
    sizes: Mapping[str, int] = field(default_factory=dict)  # units its rows average, per scope (J1 instances …)
    truncated: Mapping[str, int] = field(default_factory=dict)  # replies cut at max_tokens in its runs, by purpose

    @property
    def label(self) -> str:
        """The row label: the name, `[scripted]`, `[limit N]`."""
        return agent_label(self.name, self.scripted, self.limit)


@dataclass(frozen=True)
class RunInfo:
    """The report's setting: the environment model (users, clients, parties), the judge, the benchmark's params."""

    environment: str
    environment_scripted: bool
    judge: str
    judge_scripted: bool  # the proxy judge: numbers check the pipeline, they do not measure legal quality
    options: Mapping[str, Any] = field(default_factory=dict)  # the benchmark's params section

    @property
    def scripted(self) -> bool:
        """A scripted environment or the proxy judge produced (part of) every number."""
        return self.environment_scripted or self.judge_scripted

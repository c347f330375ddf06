"""Who and what produced a report's numbers: `AgentInfo` per agent, `RunInfo` for the report's setting.

Both are built once, by the report stages, from params.yaml and each run's `run.json` (`steps/reports/runs.py`);
every benchmark's report reads them, and the figures it computes itself (sizes, failed calls) come from its tables.
A report stage passes its long rows through `labelled_rows` (each of our rows gets its agent's `limit`, and `proxy`
when the agent itself is scripted) and its agents through `with_stand_ins`, so that the Markdown labels its rows
exactly as `jurisflow results`, `jurisflow eval` and the HTML report label them from the CSV twin.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from steps.reports.labels import OURS, agent_label, stand_ins

if TYPE_CHECKING:
    import pandas as pd


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
    stand_in: Mapping[str, bool] = field(default_factory=dict)  # CSV table -> a stand-in touched its numbers there
    protocol: str | None = None  # its protocol label (steps/protocol.py): `paper protocol`, or the deviations

    @property
    def label(self) -> str:
        """Its label across the benchmark (`agent_label`): `[scripted]` when it is a stand-in or one touched any of
        its numbers, `[limit N]` for a limited run. A table of the CSV twin takes `label_in`."""
        return agent_label(self.name, self.scripted or any(self.stand_in.values()), self.limit, self.protocol)

    def label_in(self, *tables: str) -> str:
        """Its label in the CSV twin's `tables` (a row showing numbers of several): `[scripted]` when a stand-in
        touched its numbers there."""
        touched = self.scripted or any(self.stand_in.get(t, False) for t in tables)
        return agent_label(self.name, touched, self.limit, self.protocol)


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


def labelled_rows(rows: pd.DataFrame, agents: Mapping[str, AgentInfo]) -> pd.DataFrame:
    """Long rows with what labels them: each of our rows' `limit` (its agent's run; empty for the paper's rows and
    for full runs) and `protocol` (its agent's protocol label; empty for the paper's rows), and `proxy` also true on
    every number of an agent that is itself scripted. The columns go where the twin's schema puts them
    (`long_columns(with_limit=True)`)."""
    import pandas as pd

    ours = rows.source == OURS
    agent = rows.agent.astype("string")
    limits = {name: info.limit for name, info in agents.items()}
    scripted = {name for name, info in agents.items() if info.scripted}
    limit = pd.array([limits.get(a) if o else None for a, o in zip(agent, ours, strict=True)], dtype="Int64")
    protocols = {name: info.protocol for name, info in agents.items()}
    protocol = pd.array([protocols.get(a) if o else None for a, o in zip(agent, ours, strict=True)], dtype="string")
    proxy = rows.proxy.fillna(False).astype(bool) | (ours & agent.isin(scripted).fillna(False).astype(bool))
    return rows.assign(limit=limit, protocol=protocol, proxy=proxy)


def with_stand_ins(agents: Mapping[str, AgentInfo], rows: pd.DataFrame) -> dict[str, AgentInfo]:
    """The agents with `stand_in` per table, from the long rows the report writes (`stand_ins`)."""
    touched = stand_ins(rows)
    return {
        name: replace(info, stand_in={t: v for (t, a), v in touched.items() if a == name})
        for name, info in agents.items()
    }

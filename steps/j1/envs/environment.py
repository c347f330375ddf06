"""One J1 environment's registration: everything keyed by its scenario code, in one object.

Each environment's folder `steps/j1/envs/<code>/` declares `ENV = Environment(...)` in its `env.py`; the
catalog (`steps.j1.envs.catalog.environments`) finds the folders on disk, so adding an environment is its folder
and its tests. Everything else derives its lists from the registrations: the plan (population and builder), the
params' known codes, the instance schemas (profile and truth models), the turn caps, the evaluator dispatch, the
report layout (order, names, metric columns, averages) and the SQL (a registered table, `environment_table`).

The judge side is named, not imported (`evaluator`, `court`, `drafting`): a registration is loaded by the
simulation, and its code fingerprint must not change when an evaluator does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from steps.j1.envs.common.built import Draft, Skipped
from steps.j1.eval.schemas import J1_METRICS
from steps.simulate.model import Scenario

Source = dict[str, Any]
Population = Literal["topics", "civil", "criminal"]  # topics: its own topic sources (stage j1_topics)
Family = Literal["consultation", "drafting", "court"]  # the evaluator in steps.j1.eval that scores it


@dataclass(frozen=True)
class JudgedSection:
    """A drafting II-2 component the pointwise judge scores: the document section it reads, the truth field it is
    compared with, and what the judge is told the section is."""

    section: str
    truth: str
    aspect: str


@dataclass(frozen=True)
class Drafting:
    """What the drafting evaluator reads: the document format (`steps.j1.eval.metrics` COMPLAINT / DEFENCE by name),
    the party components matched field by field (component → truth field) and the judged components."""

    document: str
    parties: Mapping[str, str]
    judged: Mapping[str, JudgedSection]


@dataclass(frozen=True)
class Environment:
    """A J1 environment: its protocol (roles, templates, turn cap and deliverable, in `scenario`), how its
    instances are built, what each role is given and what it is scored against, its metrics and evaluator, and
    its place in the paper."""

    scenario: Scenario
    name: str  # in English: Prefect task runs, reports
    position: int  # the paper's order (J1 Table 3)
    paper_size: int  # instances in the paper (J1 Table 5)
    population: Population
    draft: Callable[[Source], Draft | Skipped]  # one source → an instance draft, or a skip with its reason
    profiles: Mapping[str, type[BaseModel]]  # role → the model of what it is given
    truth: type[BaseModel]  # the ground truth the metrics compare against
    evaluator: Family
    metrics: tuple[str, ...]  # Table 3's columns for this environment, in the paper's order
    outcome: tuple[str, ...] = ()  # metrics averaged in AVG_OO
    process: tuple[str, ...] = ()  # metrics averaged in AVG_PO
    court: Literal["civil", "criminal"] | None = None  # the procedure judge's court
    stages: tuple[tuple[str, tuple[str, ...]], ...] = ()  # court-stage cues: (stage, the judge's words) in order
    drafting: Drafting | None = None
    # Sources the sample takes first (each group in seeded order) under `j1.instances.topic_mix: paper`: LC's
    # consultations with a yes/no topic, for J1 App C's mix of yes/no and open topics. None: no preference.
    prefer: Callable[[Source], bool] | None = None

    def __post_init__(self) -> None:
        code = self.scenario.code
        unknown = [m for m in self.metrics if m not in J1_METRICS]
        if unknown:
            raise ValueError(f"environment {code}: unknown metric(s) {unknown}; known: {', '.join(J1_METRICS)}")
        averaged = [m for m in (*self.outcome, *self.process) if m not in self.metrics]
        if averaged:
            raise ValueError(f"environment {code}: averages name metric(s) {averaged} it does not have")
        roles = sorted(r for r, s in self.scenario.roles.items() if s.template)  # a role without one is a hook
        if sorted(self.profiles) != roles:
            raise ValueError(f"environment {code}: profiles {sorted(self.profiles)} are not its roles {roles}")
        if (self.evaluator == "court") != (self.court is not None):
            raise ValueError(f"environment {code}: a court environment (evaluator 'court') names its court")
        if (self.evaluator == "drafting") != (self.drafting is not None):
            raise ValueError(f"environment {code}: a drafting environment (evaluator 'drafting') names its document")

    @property
    def code(self) -> str:
        return self.scenario.code

    @property
    def max_turns(self) -> int:
        return self.scenario.ending.max_turns

    @property
    def agent_role(self) -> str:
        """The role the agent under test plays."""
        return next(name for name, role in self.scenario.roles.items() if role.model == "agent")

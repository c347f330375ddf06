"""The sections of params.yaml as steps receive them: frozen pydantic models.

Each benchmark owns its section: `steps/<benchmark>/params.py` defines it and names it `SECTION` (a subclass of
`BenchmarkSection`), and flows/kit/config.py composes every such section into `Params` under the benchmark's name.
Steps take their own section (or a part of it) as an argument; no step sees another benchmark's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from steps.llm.config import ModelConfig, ModelEntry
from steps.protocol import (
    JudgePanel,
    PaperProtocol,
    ProtocolName,
    ProtocolRecord,
    RoleEntry,
    resolve_role,
    settings_of,
)


class Section(BaseModel):
    """A section (or a part of one) of params.yaml: validated once, frozen, unknown keys rejected; an error's text
    never repeats the value refused (a key pasted where the name of its variable belongs)."""

    model_config = ConfigDict(frozen=True, extra="forbid", hide_input_in_errors=True)


class JudgeProbeParams(Section):
    """`<benchmark>.judge_probes` (steps/judges/probes.py): how many judged items to probe (0: none), k
    re-judgements of each (0: none), whether to re-judge them with the rubric items shuffled, and the seed of the
    sample and of the shuffles. Here, not beside the probes, so that a benchmark's section imports no judge code."""

    sample: int = Field(default=10, ge=0)
    repeats: int = Field(default=3, ge=0, le=20)
    shuffle: bool = True
    seed: int = 0


class BenchmarkSection(Section):
    """A benchmark's section. The hooks let `Params` apply the section where it meets the shared ones.

    `protocol`: `ours` (the global roles, the section's settings) or `paper` (the paper's role models and decoding
    from `PAPER`, the benchmark's `PaperProtocol`, in place of the global `environment` and `judge`). `ROLES` are
    the model roles its stages call besides the agent; a subclass adds a `RoleEntry | None` field per role the
    section may name itself (steps/protocol.py)."""

    PAPER: ClassVar[PaperProtocol] = PaperProtocol()
    ROLES: ClassVar[tuple[str, ...]] = ()

    protocol: ProtocolName = "ours"

    def own_role(self, role: str) -> RoleEntry | None:
        """The section's own entry for `role` (None: it names none; a panel's first member for a panel)."""
        found = getattr(self, role, None) if role in type(self).model_fields else None
        if isinstance(found, JudgePanel):
            return found.panel[0]
        return found if isinstance(found, RoleEntry) else None

    def own_panel(self, role: str) -> JudgePanel | None:
        """The panel the section names for `role` (None: one judge)."""
        found = getattr(self, role, None) if role in type(self).model_fields else None
        return found if isinstance(found, JudgePanel) else None

    def panel_models(self, role: str, shared: Mapping[str, ModelEntry]) -> list[ModelConfig] | None:
        """Each member of the role's panel, resolved as a single judge would be (each merged over the paper's role
        under `protocol: paper`, else the global entry); None when the role has one model."""
        panel = self.own_panel(role)
        if panel is None:
            return None
        fallback = shared.get(role) or self.role_default(role)
        if fallback is None:
            raise KeyError(f"no model for role '{role}'")
        paper = self.PAPER.roles.get(role) if self.protocol == "paper" else None
        return [resolve_role(role, fallback, paper, member) for member in panel.panel]

    def role_default(self, role: str) -> ModelEntry | None:
        """The entry of a role that has no global one (e.g. a reference model), else None."""
        return None

    def role_model(self, role: str, shared: Mapping[str, ModelEntry]) -> ModelConfig:
        """The model playing `role` in this benchmark: the section's own entry, over the paper's role under
        `protocol: paper`, over the global entry in `shared` (or `role_default`)."""
        fallback = shared.get(role) or self.role_default(role)
        if fallback is None:
            raise KeyError(f"no model for role '{role}'")
        paper = self.PAPER.roles.get(role) if self.protocol == "paper" else None
        return resolve_role(role, fallback, paper, self.own_role(role))

    def agent_model(self, agent: ModelConfig) -> ModelConfig:
        """The agent as this benchmark sends it (its decoding under the section's settings); as it is by default."""
        return agent

    def protocol_record(
        self,
        shared: Mapping[str, ModelEntry],
        size: int | None = None,
        roles: Sequence[str] | None = None,
        agent: ModelConfig | None = None,
    ) -> ProtocolRecord:
        """What a run of this benchmark runs with beside its paper (`size`: the units it ran, when known; `roles`:
        the roles it calls, None: all of them; `agent`: the agent as the run sends it, `agent_model`)."""
        chosen = self.ROLES if roles is None else roles
        models = {r: self.role_model(r, shared) for r in chosen}
        panels = {r: tuple(m.model for m in found) for r in chosen if (found := self.panel_models(r, shared))}
        dumped: dict[str, Any] = self.model_dump()
        settings = settings_of(dumped, self.PAPER)
        return ProtocolRecord(self.protocol, models, self.PAPER, settings, size, agent, panels=panels)

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

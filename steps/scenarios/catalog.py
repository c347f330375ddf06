"""Every interactive scenario by code: the definitions only (protocol, roles, templates), without the scripted
policies, so that readers such as `jurisflow show` load no model code. `registry` adds the policies."""

from __future__ import annotations

from steps.scenarios.cd.scenario import CD
from steps.scenarios.ci.scenario import CI
from steps.scenarios.cr.scenario import CR
from steps.scenarios.dd.scenario import DD
from steps.scenarios.kq.scenario import KQ
from steps.scenarios.lc.scenario import LC
from steps.simulate import Scenario

SCENARIOS: dict[str, Scenario] = {s.code: s for s in (KQ, LC, CD, DD, CI, CR)}
J1 = ("KQ", "LC", "CD", "DD", "CI", "CR")

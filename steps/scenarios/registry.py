"""Every interactive scenario by code, with its scripted policies registered on import."""

from __future__ import annotations

import steps.scenarios.cd.scripted  # scripted policies register on import
import steps.scenarios.ci.scripted
import steps.scenarios.kq.scripted  # noqa: F401
from steps.scenarios.cd.scenario import CD
from steps.scenarios.ci.scenario import CI
from steps.scenarios.cr.scenario import CR
from steps.scenarios.dd.scenario import DD
from steps.scenarios.kq.scenario import KQ
from steps.scenarios.lc.scenario import LC
from steps.simulate import Scenario

SCENARIOS: dict[str, Scenario] = {s.code: s for s in (KQ, LC, CD, DD, CI, CR)}
J1 = ("KQ", "LC", "CD", "DD", "CI", "CR")


def scenario_versions() -> dict[str, int]:
    """Enters the run id: changing a scenario's protocol or templates means bumping its version."""
    return {code: s.version for code, s in sorted(SCENARIOS.items())}

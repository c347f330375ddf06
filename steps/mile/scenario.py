"""The MILE protocol as data (spec maser-mile §2): client and lawyer alternate, the supervisor reviews.

Turn 0 is the fixed greeting pair (`opening.py`); from turn 1 the client speaks, then the lawyer. Each client
utterance opens an exchange, so exchange e is the paper's turn e − 1 and the cap is `max_turns` + 1 exchanges
(the paper's 15 turns plus the greeting). The lawyer's `<询问结束>` ends the interview; the lawyer is then
asked once more, in the same chat, to draft the complaint from the template (`template="eval"`: the template
of the released evaluation loop, with workplace, ID and contact fields; `"sta"`: the template the STA judge
checks against). In MILE only the client is supervised; `supervise="both"` is MASER's data-synthesis mode.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from steps.mile.params import MileParams
from steps.mile.supervisor import MileSupervisor
from steps.simulate import Deliverable, Ending, Role, Scenario
from steps.simulate.routing import Alternate
from steps.simulate.templates import render

VERSION = 1
DEFAULT = MileParams()
END = "<询问结束>"
TEMPLATES = Path(__file__).parent / "templates"
COMPLAINT_TEMPLATES = {"eval": "complaint_eval.txt", "sta": "complaint_sta.txt"}
# what shapes a dialogue besides the models: the role templates, the protocol, the scripted policies, the engine
_PROTOCOL_SOURCES = (
    "scenario.py",
    "supervisor.py",
    "opening.py",
    "instances.py",
    "parties.py",
    "cues.py",
    "scripted.py",
    "oracle.py",
)


def protocol_version() -> str:
    """A short hash of everything besides the models that shapes a dialogue (it enters the run id, so a
    changed protocol never resumes from an old journal)."""
    here, engine = Path(__file__).parent, Path(__file__).parents[1] / "simulate"
    files = sorted(TEMPLATES.glob("*.*")) + [here / n for n in _PROTOCOL_SOURCES] + sorted(engine.glob("*.py"))
    digest = hashlib.sha256()
    for f in files:
        digest.update(f.name.encode() + b"\0" + f.read_bytes())
    return digest.hexdigest()[:12]


def complaint_template(name: str) -> str:
    return (TEMPLATES / COMPLAINT_TEMPLATES[name]).read_text(encoding="utf-8").strip()


def drafting_request(template: str) -> str:
    """The user message that asks for the complaint after the interview."""
    return render(TEMPLATES, "request.j2", {"template": complaint_template(template)})


def mile_scenario(options: MileParams = DEFAULT) -> Scenario:
    reviews = frozenset({"client", "lawyer"} if options.supervise == "both" else {"client"})
    return Scenario(
        code="MILE",
        version=VERSION,
        roles={"client": Role("client", "environment", "client.j2"), "lawyer": Role("lawyer", "agent", "lawyer.j2")},
        opener="client",
        driver="client",
        next_speaker=Alternate("client", "lawyer"),
        ending=Ending(max_turns=options.max_turns + 1, markers={"lawyer": END}),
        deliverable=Deliverable(
            "after_dialogue", role="lawyer", name="complaint", force_template=drafting_request(options.template)
        ),
        templates=str(TEMPLATES),
        kickoff="（请向律师说明来意。）",
        nudge="（询问已经结束。）",
        reviewer=MileSupervisor(reviews, style_triggers_revision=options.style_triggers_revision, seed=options.seed),
    )

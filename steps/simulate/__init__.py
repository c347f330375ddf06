"""The dialogue engine: one small turn loop shared by every interactive scenario (J1, MILE, UCL, PLawBench).

A scenario is data (`Scenario`: roles, who speaks next, when it ends, what the deliverable is, optional
hooks); the engine runs one instance of it with a `Speak` function that reaches the models.
"""

from steps.simulate.model import (
    Deliverable,
    Dialogue,
    Ending,
    EndReason,
    Role,
    Scenario,
    SpeakCall,
    Turn,
    TurnKind,
)

__all__ = [
    "Deliverable",
    "Dialogue",
    "EndReason",
    "Ending",
    "Role",
    "Scenario",
    "SpeakCall",
    "Turn",
    "TurnKind",
]

"""Who speaks next: fixed alternation, or the addressee named by a control sentence."""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Alternate:
    """Two roles take turns; each addresses the other."""

    first: str
    second: str

    def route(self, speaker: str, text: str) -> tuple[str | None, str]:
        other = self.second if speaker == self.first else self.first
        return other, other


_LEAD = re.compile(r"^[\s\"'“”‘’*#>【\[（(]*")


@dataclass(frozen=True)
class ByAddressee:
    """The chair (the judge) addresses one role per utterance with a control sentence at its start.

    An utterance without a valid control sentence is routed to nobody and the chair speaks again; every
    other role answers the chair.
    """

    chair: str
    prefixes: dict[str, str] = field(default_factory=dict)  # control sentence -> role

    def addressee(self, text: str) -> str | None:
        body = _LEAD.sub("", text)
        for prefix in sorted(self.prefixes, key=len, reverse=True):
            if body.startswith(prefix) or body.startswith(prefix.replace("：", ":")):
                return self.prefixes[prefix]
        return None

    def route(self, speaker: str, text: str) -> tuple[str | None, str]:
        if speaker != self.chair:
            return self.chair, self.chair
        to = self.addressee(text)
        return to, (to or self.chair)

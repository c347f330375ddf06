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

    def _control(self, text: str) -> tuple[str | None, int]:
        """The addressed role and where the words after the control sentence start (0 when there is none)."""
        lead = _LEAD.match(text)
        start = lead.end() if lead else 0
        for prefix in sorted(self.prefixes, key=len, reverse=True):
            for form in (prefix, prefix.replace("：", ":")):
                if text.startswith(form, start):
                    return self.prefixes[prefix], start + len(form)
        return None, 0

    def addressee(self, text: str) -> str | None:
        return self._control(text)[0]

    def strip(self, text: str) -> str:
        """The utterance as its addressee hears it: without the control sentence (spec j1-envs §8.4)."""
        to, end = self._control(text)
        return text[end:].lstrip() if to else text

    def route(self, speaker: str, text: str) -> tuple[str | None, str]:
        if speaker != self.chair:
            return self.chair, self.chair
        to = self.addressee(text)
        return to, (to or self.chair)

"""The four failure causes of the court scenarios (J1 App F.4, spec j1-envs §5.13), read from the transcript.

1. single-turn collapse: the judge gives its judgment before any other participant has spoken (the whole
   trial in one unilateral speech; the same reading as UNI in steps.metrics.j1.trial);
2. missing final objective: no judge utterance holds a judgment (本院认为 reasoning and rulings);
3. missing addressee: a judge utterance other than the opening and the judgment names no addressee;
4. role omission: a party is never addressed.

Only scenarios routed by addressee (a chair) have them; two-party scenarios return none.
"""

from __future__ import annotations

from steps.extract.sections import judgment_parts
from steps.simulate.model import Dialogue, Scenario

CAUSES = ("single_turn_collapse", "missing_final_objective", "missing_addressee", "role_omission")


def is_judgment(text: str) -> bool:
    """本院认为 reasoning with rulings, as the extraction parser reads a judgment."""
    return "本院认为" in text and judgment_parts(text).complete


def failure_causes(dialogue: Dialogue, scenario: Scenario) -> list[str]:
    chair = getattr(scenario.next_speaker, "chair", None)
    if chair is None:
        return []
    utterances = dialogue.utterances()
    judge = [t for t in utterances if t.speaker == chair]
    parties = [r for r, role in scenario.roles.items() if r != chair and role.model == "environment"]
    first_party = next((i for i, t in enumerate(utterances) if t.speaker != chair), len(utterances))
    causes = []
    if any(is_judgment(t.text) for t in utterances[:first_party] if t.speaker == chair):
        causes.append("single_turn_collapse")
    if not any(is_judgment(t.text) for t in judge):
        causes.append("missing_final_objective")
    if any(t.addressee is None and not is_judgment(t.text) for t in judge[1:]):
        causes.append("missing_addressee")
    addressed = {t.addressee for t in judge}
    if any(p not in addressed for p in parties):
        causes.append("role_omission")
    return causes

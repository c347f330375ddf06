"""The four failure causes of the court scenarios (spec j1-envs §5.13), detected from the transcript.

1. single-turn collapse: one judge turn runs the whole procedure (a judgment and at least one earlier-stage
   action in the same utterance, before any party has spoken);
2. missing final objective: no judge utterance holds a judgment (本院认为 and rulings);
3. missing addressee: a judge turn, other than the opening, names no addressee;
4. role omission: a party is never addressed.
"""

from __future__ import annotations

from steps.simulate.model import Dialogue, Scenario

JUDGMENT_CUES = ("本院认为",)
RULING_CUES = ("判决如下", "判处", "判令", "驳回")
EARLY_STAGE_CUES = ("身份", "回避", "诉讼权利", "开庭", "举证", "陈述")


def _is_judgment(text: str) -> bool:
    return any(c in text for c in JUDGMENT_CUES) and any(c in text for c in RULING_CUES)


def failure_causes(dialogue: Dialogue, scenario: Scenario) -> list[str]:
    chair = getattr(scenario.next_speaker, "chair", None)
    if chair is None:
        return []
    utterances = dialogue.utterances()
    judge = [t for t in utterances if t.speaker == chair]
    parties = [r for r in scenario.roles if r != chair and scenario.roles[r].model == "environment"]
    causes = []
    first_party = next((i for i, t in enumerate(utterances) if t.speaker != chair), len(utterances))
    if any(_is_judgment(t.text) and any(c in t.text for c in EARLY_STAGE_CUES) for t in utterances[:first_party]
           if t.speaker == chair):
        causes.append("single_turn_collapse")
    if not any(_is_judgment(t.text) for t in judge):
        causes.append("missing_final_objective")
    if any(t.addressee is None and not _is_judgment(t.text) for t in judge[1:]):
        causes.append("missing_addressee")
    addressed = {t.addressee for t in judge}
    if any(p not in addressed for p in parties):
        causes.append("role_omission")
    return causes

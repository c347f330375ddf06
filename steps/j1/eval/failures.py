"""The four failure causes of the court scenarios (J1 App F.4, spec j1-envs §5.13), read from the transcript.

1. single-turn collapse: the judge gives its judgment before any other participant has spoken (the whole
   trial in one unilateral speech; the same reading as UNI in steps.j1.eval.metrics.trial);
2. missing final objective: no judge utterance holds a judgment (本院认为 reasoning and rulings);
3. missing addressee: a judge utterance other than the opening and the judgment names no addressee;
4. role omission: a party is never addressed.

Only scenarios routed by addressee (a chair) have them; two-party scenarios return none. The judge stage reads
them from the run's turn rows (`causes_of_rows`) and writes them beside the scores; the aggregate stage counts
them and shows them in the transcripts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from steps.j1.envs.registry import SCENARIOS
from steps.j1.eval.case import Case
from steps.j1.extract.sections import judgment_parts
from steps.simulate.model import Scenario

CAUSES = ("single_turn_collapse", "missing_final_objective", "missing_addressee", "role_omission")
Speech = tuple[str, "str | None", str]  # speaker, addressee, text


def is_judgment(text: str) -> bool:
    """本院认为 reasoning with rulings, as the extraction parser reads a judgment."""
    return "本院认为" in text and judgment_parts(text).complete


def failure_causes(speech: Sequence[Speech], scenario: Scenario) -> list[str]:
    """The causes shown by a dialogue's speech (its utterances in order, failed calls left out)."""
    chair = getattr(scenario.next_speaker, "chair", None)
    if chair is None:
        return []
    judge = [(addressee, text) for speaker, addressee, text in speech if speaker == chair]
    parties = [r for r, role in scenario.roles.items() if r != chair and role.model == "environment"]
    first_party = next((i for i, (speaker, _, _) in enumerate(speech) if speaker != chair), len(speech))
    causes = []
    if any(is_judgment(text) for speaker, _, text in speech[:first_party] if speaker == chair):
        causes.append("single_turn_collapse")
    if not any(is_judgment(text) for _, text in judge):
        causes.append("missing_final_objective")
    if any(addressee is None and not is_judgment(text) for addressee, text in judge[1:]):
        causes.append("missing_addressee")
    addressed = {addressee for addressee, _ in judge}
    if any(p not in addressed for p in parties):
        causes.append("role_omission")
    return causes


def speech_of(turns: Iterable[Mapping[str, Any]]) -> list[Speech]:
    """The speech in rows of turns.parquet (in transcript order): utterances whose call did not fail."""
    return [
        (t["speaker"], t.get("addressee") if isinstance(t.get("addressee"), str) else None, t["text"])
        for t in turns
        if t["kind"] == "utterance" and not isinstance(t.get("failure"), str)
    ]


def causes_of_rows(turns: Iterable[Mapping[str, Any]], scenario: Scenario) -> list[str]:
    """The failure causes of one dialogue from its rows of turns.parquet."""
    return failure_causes(speech_of(turns), scenario)


def case_failure_causes(case: Case) -> list[str]:
    """The failure causes of a case's dialogue (its scenario from the registry)."""
    return causes_of_rows(case.turns, SCENARIOS[case.scenario])


def failure_frame(causes: Mapping[str, tuple[str, list[str]]], *, run_id: str, agent: str) -> pd.DataFrame:
    """failure_causes.parquet: one row per dialogue (instance id → (scenario, causes)), ordered by instance id."""
    rows = [
        {"run_id": run_id, "agent": agent, "scenario": scenario, "instance_id": iid, "failure_causes": found}
        for iid, (scenario, found) in sorted(causes.items())
    ]
    return pd.DataFrame(rows, columns=["run_id", "agent", "scenario", "instance_id", "failure_causes"])

"""One agent's MILE run as stage `mile_simulate` makes it (and `jurisflow estimate` follows it): the sample of
dialogues, the speaker that plays every role, and the run's turns and dialogues tables."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from steps.llm import Completer, ModelConfig
from steps.mile.decoding import RoleDecodingSpeaker
from steps.mile.frames import mile_tables
from steps.mile.instances import build_instance, sample_rows
from steps.mile.opening import FixedOpening
from steps.mile.params import MileParams
from steps.mile.scenario import mile_scenario
from steps.simulate import Dialogue, Scenario
from steps.simulate.instance import Instance
from steps.simulate.records import RunLabel


@dataclass(frozen=True)
class MileSample:
    """The dialogues of a run: the sampled rows of the MILE table, their instances, and the scenario."""

    rows: pd.DataFrame
    instances: list[Instance]
    scenario: Scenario

    def tables(self, dialogues: list[Dialogue], run: RunLabel) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The run's turns table and its dialogues table (one row per dialogue, with the complaint)."""
        by_id = {i.instance_id: i for i in self.instances}
        row_of = {r.instance_id: r for r in self.rows.itertuples()}
        return mile_tables(self.scenario, by_id, row_of, dialogues, run)


def mile_sample(mile: pd.DataFrame, p: MileParams, limit: int | None = None) -> MileSample:
    """The seeded sample `mile.sample` of the MILE table; with `limit` (the agent's own), its first N."""
    rows = sample_rows(mile, p.sample, p.seed)
    rows = rows if limit is None else rows.head(limit)
    scenario = mile_scenario(p)
    instances = [build_instance(r, supervise_lawyer=p.supervise == "both") for r in rows.itertuples()]
    return MileSample(rows, instances, scenario)


def mile_speaker(door: Completer, agent: ModelConfig, environment: ModelConfig, p: MileParams) -> FixedOpening:
    """The agent as the lawyer and the environment model as the client and the supervisor, each role with its
    decoding (`mile.role_decoding`); the fixed opening lines are spoken without a model."""
    decodings = p.role_decodings(environment.decoding)
    return FixedOpening(RoleDecodingSpeaker(door, agent, environment, decodings, models=p.role_configs(environment)))

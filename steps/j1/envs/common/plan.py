"""Which sources become J1 instances: every candidate drafted, then a seeded sample of the eligible ones.

Candidates of a scenario are ranked by a hash of (seed, source id) and the first `size` eligible ones are
taken, so the same params always pick the same instances. An environment may prefer some sources (LC: the
consultations with a yes/no topic, J1 App C's mix): with `prefer`, those come first, each group in seeded order.
CD, DD and CI are built from one set of civil cases, as in J1 (all three from the same 93): with `shared_civil`
a civil case is eligible only when every civil scenario asked for can use it, and each takes the first `size` of
that one ranked list (so equal sizes give the same cases); without it, each takes its own first eligible cases.
A candidate ranked before the last one taken that lacks what its scenario needs is recorded as skipped with
the reason; the whole population's eligibility is counted for the report.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from steps.j1.envs.catalog import environment, environments, instance_sizes
from steps.j1.envs.common.built import Draft, Skipped
from steps.j1.envs.environment import Source
from steps.j1.params import InstancesParams


@dataclass(frozen=True)
class Eligibility:
    scenario: str
    candidates: int
    eligible: int
    wanted: int | None  # None: every eligible source
    taken: int
    lacking: dict[str, int] = field(default_factory=dict)  # reason -> candidates of the whole population
    preferred: int | None = None  # eligible candidates the environment prefers (None: it prefers none)
    shared: bool = False  # eligible only when every civil scenario of the plan can use the case


@dataclass(frozen=True)
class Plan:
    drafts: list[Draft]
    skipped: list[Skipped]
    eligibility: list[Eligibility]


def rank(seed: int, source_id: str) -> str:
    return hashlib.sha256(f"{seed}\x1f{source_id}".encode()).hexdigest()


def plain(value: Any) -> Any:
    """A Parquet value as plain Python: arrays as lists (recursively), NaN as None."""
    if hasattr(value, "tolist") and not isinstance(value, str | bytes):
        value = value.tolist()
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return None if isinstance(value, float) and value != value else value


def records(frame: pd.DataFrame) -> list[Source]:
    """DataFrame rows as plain dicts (see `plain`)."""
    return [{k: plain(v) for k, v in row.items()} for row in frame.to_dict("records")]


def pool_of(scenario: str) -> str:
    """The pool an environment draws from: "civil" or "criminal" cases, or its own topic sources (its code)."""
    population = environment(scenario).population
    return scenario if population == "topics" else population


def populations(cases: pd.DataFrame, topics: pd.DataFrame) -> dict[str, list[Source]]:
    pools = {"civil": records(cases[cases.kind == "civil"]), "criminal": records(cases[cases.kind == "criminal"])}
    topical = [code for code, env in environments().items() if env.population == "topics"]
    return pools | {code: records(topics[topics.scenario == code]) for code in topical}


def _reasons(reason: str) -> list[str]:
    head, _, fields = reason.partition(": ")
    return [f"missing {f}" for f in fields.split(", ")] if head == "missing" else [reason.split(" (")[0]]


SHARED_REASON = "shared civil set"  # a case another civil scenario cannot use: "shared civil set: DD cannot use it"


def _share(results: dict[str, list[Draft | Skipped]], civil: list[str]) -> None:
    """Skip, in every civil scenario, each case that another civil scenario of the plan cannot use."""
    unusable: dict[tuple[str, ...], list[str]] = {}
    for s in civil:
        for r in results[s]:
            if isinstance(r, Skipped):
                unusable.setdefault(r.source_ids, []).append(s)
    for s in civil:
        results[s] = [
            Skipped(r.instance_id, s, r.source_ids, f"{SHARED_REASON}: {', '.join(unusable[ids])} cannot use it")
            if isinstance(r, Draft) and (ids := r.source_ids) in unusable
            else r
            for r in results[s]
        ]


def plan(
    pools: Mapping[str, list[Source]],
    sizes: Mapping[str, int | None],
    *,
    seed: int,
    shared_civil: bool = True,
    prefer: bool = True,
) -> Plan:
    """Draft every candidate of each scenario in `sizes` (its registered builder over its pool), and take the
    first `size` eligible by rank (preferred sources first with `prefer`; civil cases every civil scenario can
    use with `shared_civil`)."""
    results: dict[str, list[Draft | Skipped]] = {}
    liked: dict[str, int] = {}  # scenario -> its preferred sources, ranked first
    for scenario in sizes:
        ranked = sorted(pools[pool_of(scenario)], key=lambda s: rank(seed, s.get("case_id") or s["source_id"]))
        if prefer and (likes := environment(scenario).prefer) is not None:
            first = [s for s in ranked if likes(s)]
            ranked, liked[scenario] = first + [s for s in ranked if not likes(s)], len(first)
        results[scenario] = [environment(scenario).draft(s) for s in ranked]
    civil = [s for s in sizes if pool_of(s) == "civil"] if shared_civil else []
    shared = len(civil) > 1
    if shared:
        _share(results, civil)
    drafts: list[Draft] = []
    skipped: list[Skipped] = []
    eligibility: list[Eligibility] = []
    for scenario, size in sizes.items():
        done = results[scenario]
        eligible = [i for i, r in enumerate(done) if isinstance(r, Draft)]
        chosen = eligible if size is None else eligible[:size]
        cut = chosen[-1] if chosen and len(chosen) == size else len(done)
        drafts += [r for i in chosen if isinstance(r := done[i], Draft)]
        skipped += [r for r in done[:cut] if isinstance(r, Skipped)]
        lacking = Counter(x for r in done if isinstance(r, Skipped) for x in _reasons(r.reason))
        preferred = sum(i < liked[scenario] for i in eligible) if scenario in liked else None
        eligibility.append(
            Eligibility(
                scenario,
                len(done),
                len(eligible),
                size,
                len(chosen),
                dict(lacking),
                preferred,
                shared and scenario in civil,
            )
        )
    return Plan(drafts, skipped, eligibility)


def with_causes(cases: pd.DataFrame, civil: pd.DataFrame) -> pd.DataFrame:
    """Cases with the civil case type (案由) from the source data (criminal cases: None)."""
    causes = civil[["case_id", "cause"]]
    return cases.merge(causes, on="case_id", how="left", validate="one_to_one")


def instance_plan(cases: pd.DataFrame, civil: pd.DataFrame, topics: pd.DataFrame, instances: InstancesParams) -> Plan:
    """The J1 instances to build from the extracted cases, the civil judgments' causes (case_id, cause) and the
    topic sources, as `j1.instances` asks: the same plan in stages `j1_personas` and `j1_instances` (and in
    `jurisflow estimate`)."""
    return plan(
        populations(with_causes(cases, civil), topics),
        instance_sizes(instances.sizes),
        seed=instances.seed,
        shared_civil=instances.civil_cases == "shared",
        prefer=instances.topic_mix == "paper",
    )

"""The instances report (`reports/instances.md`) and its long-format twin, from the DuckDB query results.

As J1's Table 5 (counts per scenario, paper numbers beside ours), App C (topic counts) and Figure 2 (case types
and charges), plus what J1 leaves implicit: which sources were eligible and why others were not, and the persona
distributions (Big-Five levels before and after the 2:1:2 redistribution, MASER's legal-sense levels).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from steps.j1.envs.catalog import paper_sizes
from steps.j1.envs.common.plan import Eligibility
from steps.j1.envs.provenance import PAPER_SHARED_CIVIL, PAPER_TOPICS, Provenance, provenance_line
from steps.reports.long import long_columns
from steps.reports.prose import render_template

PAPER_COUNTS = paper_sizes()  # J1 Table 5, from the environments' registrations
TEMPLATES = Path(__file__).parent / "templates"


@dataclass(frozen=True)
class InstancesReport:
    environment: str
    scripted: bool
    seed: int
    persona_seed: int
    topic_method: str
    eligibility: list[Eligibility]
    queries: dict[str, pd.DataFrame]
    provenance: Provenance

    @property
    def shared(self) -> list[str]:
        """The civil environments built from one shared set of cases (empty: each took its own)."""
        return [e.scenario for e in self.eligibility if e.shared]

    @property
    def preferred(self) -> list[Eligibility]:
        """The environments that took their preferred sources first (LC: consultations with a yes/no topic)."""
        return [e for e in self.eligibility if e.preferred is not None]


def counts_table(r: InstancesReport) -> pd.DataFrame:
    counts = r.queries["instances_counts"].set_index("scenario")
    rows = []
    for e in r.eligibility:
        c = counts.loc[e.scenario] if e.scenario in counts.index else None
        rows.append(
            {
                "scenario": e.scenario,
                "instances": int(c["instances"]) if c is not None else 0,
                "paper (Table 5)": PAPER_COUNTS.get(e.scenario),
                "asked": e.wanted if e.wanted else "all",
                "eligible": e.eligible,
                "candidates": e.candidates,
                "skipped in sample": int(c["skipped"]) if c is not None else 0,
                "personas": int(c["personas"]) if c is not None else 0,
            }
        )
    return pd.DataFrame(rows)


def lacking_table(r: InstancesReport) -> pd.DataFrame:
    """Per scenario and reason: candidates of the whole population, and those ranked into the sample."""
    sample = r.queries["instances_skip_reasons"].set_index(["scenario", "reason"])["candidates"]
    rows = [
        {
            "scenario": e.scenario,
            "reason": reason,
            "population": n,
            "in sample": int(sample.get((e.scenario, reason), 0)),
        }
        for e in r.eligibility
        for reason, n in sorted(e.lacking.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    return pd.DataFrame(rows, columns=["scenario", "reason", "population", "in sample"])


def topics_table(r: InstancesReport) -> pd.DataFrame:
    ours = r.queries["instances_topics"]
    rows = []
    for row in ours.to_dict("records"):
        b, o, t, a = PAPER_TOPICS.get(row["scenario"], (None,) * 4)  # an environment the paper does not have
        rows.append({**row, "paper binary": b, "paper open": o, "paper total": t, "paper avg": a})
    return pd.DataFrame(rows)


def render_instances(r: InstancesReport) -> str:
    """The Markdown report (templates/instances.md.j2)."""
    q = r.queries
    return render_template(
        TEMPLATES,
        "instances.md.j2",
        r=r,
        provenance=provenance_line(r.provenance),
        counts=counts_table(r),
        lacking=lacking_table(r),
        traits=q["instances_traits"],
        legal_sense=q["instances_legal_sense"],
        causes=q["instances_causes"].groupby("scenario", sort=False).head(10),
        charges=q["instances_charges"].head(20),
        topics=topics_table(r),
    )


def instances_long(r: InstancesReport) -> pd.DataFrame:
    """The report's numbers in the shared long format (one row per number; `source` ours or paper)."""
    rows: list[dict] = []

    def add(table: str, scope: str, metric: str, value: float, n: int | None = None, source: str = "ours") -> None:
        rows.append(
            {
                "benchmark": "J1",
                "table": table,
                "agent": "",
                "scope": scope,
                "metric": metric,
                "value": value,
                "n": n,
                "judge": "",
                "proxy": r.scripted and source == "ours",
                "source": source,
            }
        )

    for row in lacking_table(r).to_dict("records"):
        add("eligibility", row["scenario"], row["reason"], row["population"])
    for row in counts_table(r).to_dict("records"):
        add("instances", row["scenario"], "instances", row["instances"])
        add("instances", row["scenario"], "eligible", row["eligible"], row["candidates"])
        add("instances", row["scenario"], "skipped_in_sample", row["skipped in sample"])
        if row["paper (Table 5)"] is not None:
            add("instances", row["scenario"], "instances", row["paper (Table 5)"], source="paper")
    if r.provenance.civil:  # the civil cases CD, DD and CI share (J1: one set of 93)
        scope = "+".join(r.provenance.civil)
        add("instances", scope, "shared_civil_cases", r.provenance.shared_cases, r.provenance.civil_cases)
        add("instances", scope, "shared_civil_cases", PAPER_SHARED_CIVIL, PAPER_SHARED_CIVIL, source="paper")
    for row in r.queries["instances_traits"].to_dict("records"):
        add("traits", row["trait"], f"assigned_{row['level']}", row["assigned"])
        add("traits", row["trait"], f"final_{row['level']}", row["final"])
    for row in r.queries["instances_legal_sense"].to_dict("records"):
        add("legal_sense", "all", f"level_{row['legal_sense']}", row["personas"])
    for row in r.queries["instances_causes"].to_dict("records"):
        add("causes", row["scenario"], row["cause"], row["instances"])
    for row in r.queries["instances_charges"].to_dict("records"):
        add("charges", "CR", row["charge"], row["instances"])
    for row in r.queries["instances_topics"].to_dict("records"):
        for metric in ("binary_topics", "open_ended_topics", "total_topics", "avg_topics_per_case"):
            add("topics", row["scenario"], metric, row[metric], row["instances"])
        if row["scenario"] not in PAPER_TOPICS:  # an environment the paper does not have
            continue
        for metric, value in zip(
            ("binary_topics", "open_ended_topics", "total_topics", "avg_topics_per_case"),
            PAPER_TOPICS[row["scenario"]],
            strict=True,
        ):
            add("topics", row["scenario"], metric, value, PAPER_COUNTS[row["scenario"]], source="paper")
    return pd.DataFrame(rows, columns=long_columns(with_failed=False))

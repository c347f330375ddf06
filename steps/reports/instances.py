"""The instances report (`reports/instances.md`) and its long-format twin, from the DuckDB query results.

As J1's Table 5 (counts per scenario, paper numbers beside ours), App C (topic counts) and Figure 2 (case types
and charges), plus what J1 leaves implicit: which sources were eligible and why others were not, and the persona
distributions (Big-Five levels before and after the 2:1:2 redistribution, MASER's legal-sense levels).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from steps.reports.markdown import markdown_table
from steps.scenarios.catalog import paper_sizes
from steps.scenarios.j1.plan import Eligibility

PAPER_COUNTS = paper_sizes()  # J1 Table 5, from the environments' registrations
PAPER_TOPICS = {"KQ": (286, 188, 474, 4.84), "LC": (116, 107, 223, 3.60)}  # binary, open, total, avg (App C)
LONG_COLUMNS = ["benchmark", "table", "agent", "scope", "metric", "value", "n", "judge", "proxy", "source"]

DERIVATION = """J1 builds its KQ and LC topic lists from a practice book and 66law.cn articles that are not public.
With `topics.method: derived` (the default, offline) they are derived by rule from LawBench items whose answers
are known (steps/scenarios/j1/topics.py):

- **KQ, judgement questions** (LawBench 1-2, JEC-QA single choice): a question that asks which statement is
  correct (or incorrect) gives one yes/no topic per option, 是 for a true statement and 否 for a false one; the
  theme is what the question is about. Questions whose options are not statements are not used.
- **KQ, statute knowledge** (LawBench 1-1): up to four articles of one law form one instance (theme: the law);
  each is an open topic whose answer is the article's text (a legal phrase, for I-2's LLM judge).
- **LC** (LawBench 3-8, 66law.cn consultations): the question is the client's background; the answer gives an
  open topic (what to do → the answer's core), a statute topic (its 法律依据, parsed to law and article, scored
  by rule), and a yes/no topic only when the client asked a yes/no question and the answer's first clause
  answers it with the question's own modal verb (可以/能, 需要/应当 …) without a hedge.
- The KQ client's occupation is picked (seeded) from keyword groups of the theme; the LC client's name is a
  seeded draw. With `topics.method: llm`, the environment model reads each source and writes the occupation or
  background, the theme and the topics (J1's own procedure; invalid answers are dropped and counted)."""


@dataclass(frozen=True)
class InstancesReport:
    environment: str
    scripted: bool
    seed: int
    persona_seed: int
    topic_method: str
    eligibility: list[Eligibility]
    queries: dict[str, pd.DataFrame]


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
    q = r.queries
    label = " (**scripted stand-in**: personas and topics are deterministic templates, not model output)"
    causes = q["instances_causes"].groupby("scenario", sort=False).head(10)
    lines = [
        "# J1-ENVS environment instances",
        "",
        f"Environment model `{r.environment}`{label if r.scripted else ''}; instance seed {r.seed}, persona seed "
        f"{r.persona_seed}; KQ/LC topics `{r.topic_method}`. Sources: extracted judgments (`cases.parquet`: "
        "JuDGE criminal, C3RD civil) and LawBench Q&A items; J1 used 2025 judgments and unpublished articles, so "
        "counts and distributions differ from the paper's by construction.",
        "",
        "## Instances per scenario",
        "",
        markdown_table(counts_table(r)),
        "",
        "`eligible` counts every candidate source that has what the scenario needs; the sample takes the first "
        "eligible ones in a seeded order (CD, DD and CI share civil cases as far as each one's needs allow).",
        "",
        "## Why candidates are not eligible",
        "",
        "`population`: candidates of the whole source set lacking it; `in sample`: those ranked before the last "
        "instance taken, recorded in `instance_skips.parquet` with their reason (a candidate may lack several).",
        "",
        markdown_table(lacking_table(r)),
        "",
        "## Persona Big-Five levels (KQ/LC clients, CD plaintiffs, DD defendants)",
        "",
        "`assigned`: the environment model's level; `final`: after every medium was re-drawn high : medium : low "
        "= 2 : 1 : 2 (J1 §B.2), so the final medium share is about a fifth of the assigned mediums.",
        "",
        markdown_table(q["instances_traits"]),
        "",
        "## Legal-sense levels (MASER; recorded for every persona, used by the MASER-style client)",
        "",
        markdown_table(q["instances_legal_sense"]),
        "",
        "## Civil case types (案由), ten most frequent per scenario",
        "",
        markdown_table(causes),
        "",
        "## Criminal charges (CR)",
        "",
        markdown_table(q["instances_charges"].head(20)),
        "",
        "## Topics (KQ, LC): ours and J1 App C",
        "",
        markdown_table(topics_table(r)),
        "",
        "## How the topic lists are derived",
        "",
        DERIVATION,
        "",
    ]
    return "\n".join(lines)


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
    return pd.DataFrame(rows, columns=LONG_COLUMNS)

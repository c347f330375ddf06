"""Where the J1 instances come from and how they differ from the paper's: the line every J1 report opens with.

J1's own instances (2025 judgments, a practice book and 66law.cn articles turned into instances by GPT-4o) are not
released; ours are rebuilt from public data. `provenance` counts, from an instances table, what the line states:
instances per environment beside J1's Table 5, the civil cases the civil environments share (J1 builds CD, DD
and CI from one set of 93) and the yes/no and open topics beside App C; `provenance_line` writes it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from steps.j1.envs.catalog import environments, paper_sizes

PAPER_TOPICS = {"KQ": (286, 188, 474, 4.84), "LC": (116, 107, 223, 3.60)}  # binary, open, total, avg (App C)
PAPER_SHARED_CIVIL = 93  # civil judgments behind CD, DD and CI alike (J1 §3.1, Table 5)
HEAD = "**Instances rebuilt from public judgments and Q&A, not J1's**"  # how the paragraph opens, in every report
SOURCES = (
    "civil cases from C3RD first-instance judgments, criminal cases from JuDGE judgments, KQ topics from LawBench "
    "1-1/1-2 items, LC consultations from LawBench 3-8 (66law.cn, J1's LC site)"
)


@dataclass(frozen=True)
class Provenance:
    sizes: dict[str, tuple[int, int]]  # environment -> (our instances, the paper's), in the paper's order
    civil: tuple[str, ...]  # the civil-case environments built (CD, DD, CI)
    shared_cases: int  # civil cases every one of them was built from
    civil_cases: int  # distinct civil cases among them
    topics: dict[str, tuple[int, int]]  # topic environment -> (yes/no topics, open topics) built


def _kinds(truth: Any) -> list[str]:
    topics = truth.get("topics") if isinstance(truth, Mapping) else None
    return [t["kind"] for t in (topics if topics is not None else [])]


def provenance(instances: pd.DataFrame) -> Provenance:
    """What an instances table (instances.parquet) was built from, per environment the paper has."""
    envs = environments()
    counts = instances.scenario.value_counts()
    sizes = {code: (int(counts.get(code, 0)), size) for code, size in paper_sizes().items()}
    civil = tuple(c for c, e in envs.items() if e.population == "civil" and counts.get(c, 0))
    cases = [
        {tuple(ids) for ids in instances.loc[instances.scenario == code, "source_ids"].map(list)} for code in civil
    ]
    shared = set.intersection(*cases) if cases else set()
    topics = {}
    for code, env in envs.items():
        if env.population != "topics" or not counts.get(code, 0):
            continue
        kinds = [k for truth in instances.loc[instances.scenario == code, "ground_truth"] for k in _kinds(truth)]
        binary = sum(k == "binary" for k in kinds)
        topics[code] = (binary, len(kinds) - binary)
    return Provenance(sizes, civil, len(shared), len(set().union(*cases)) if cases else 0, topics)


def provenance_line(p: Provenance) -> str:
    """One Markdown paragraph: the instances are rebuilt from public data, and each way they differ from J1's."""
    sizes = ", ".join(f"{code} {ours} ({paper})" for code, (ours, paper) in p.sizes.items())
    parts = [f"{HEAD} (unreleased): {SOURCES}. Instances ours (paper, Table 5): {sizes}."]
    if p.civil:
        names = ", ".join(p.civil[:-1]) + f" and {p.civil[-1]}" if len(p.civil) > 1 else p.civil[0]
        if p.shared_cases == p.civil_cases:
            parts.append(
                f"{names} are built from one shared set of {p.shared_cases} civil cases (paper: one set of "
                f"{PAPER_SHARED_CIVIL})"
            )
            if p.shared_cases < PAPER_SHARED_CIVIL:
                parts[-1] += (
                    "; fewer because few public civil judgments state everything all three need (the plaintiff's "
                    "evidence, the defence, the court's findings: reports/instances.md counts what each lacks)"
                )
        else:
            parts.append(
                f"{names} share only {p.shared_cases} of the {p.civil_cases} civil cases they use "
                f"(`j1.instances.civil_cases: separate`; paper: one set of {PAPER_SHARED_CIVIL})"
            )
        parts[-1] += "."
    if p.topics:
        paper = {code: f" ({b} + {o})" for code, (b, o, _, _) in PAPER_TOPICS.items()}
        listed = ", ".join(f"{code} {b} + {o}{paper.get(code, '')}" for code, (b, o) in p.topics.items())
        parts.append(f"Topics yes/no + open, ours (paper, App C): {listed}.")
        lc = p.topics.get("LC")
        if lc is not None and lc[0] < PAPER_TOPICS["LC"][0]:
            parts.append(
                "LC has fewer yes/no topics because a LawBench 3-8 consultation asks one question: our rules "
                "(`j1.topics.method: derived`) make it a yes/no topic only when the client asks yes or no and the "
                "answer opens with a plain yes or no, and no public consultation set holds J1's topic lists (its "
                "GPT-4o split each 66law.cn article into 3.6 topics, 1.9 of them yes/no)."
            )
    return " ".join(parts)


def report_paragraph(markdown: str) -> str | None:
    """The provenance paragraph of a J1 report (its Markdown text): the line opening with `HEAD`; None without."""
    return next((line for line in markdown.splitlines() if line.startswith(HEAD)), None)


_SIZES = re.compile(r"Instances (?:run, )?ours \(paper, Table 5\): ([^.]*)\.")
_CIVIL = re.compile(r"(\w+, \w+ and \w+ (?:are built from one shared set of|share only) .*?)\.(?:\s|$)")


def brief(paragraph: str) -> str:
    """The paragraph's short form (what `jurisflow results` prints): rebuilt, the sizes beside Table 5's and the
    civil case set, e.g. `rebuilt from public judgments and Q&A, not J1's (unreleased); ours (paper, Table 5): KQ
    98 (98), …; CD, DD and CI are built from one shared set of 25 civil cases (paper: one set of 93)`."""
    parts = ["rebuilt from public judgments and Q&A, not J1's (unreleased)"]
    if (sizes := _SIZES.search(paragraph)) is not None:
        parts.append(f"ours (paper, Table 5): {sizes.group(1)}")
    if (civil := _CIVIL.search(paragraph)) is not None:
        parts.append(civil.group(1).split("; fewer because")[0])  # the sentence, not its explanation
    return "; ".join(parts)

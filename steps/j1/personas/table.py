"""Personas as table rows and back (stage `j1_personas` writes them; stage `j1_instances` reads them)."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from steps.j1.personas.generate import PROMPT_VERSION, Persona, Subject

COLUMNS = [
    "persona_id",
    "scenario",
    "role",
    "source_ids",
    "role_desc",
    "info",
    "assigned",
    "levels",
    "style",
    "legal_sense",
    "legal_sense_text",
    "withheld_field",
    "vague_facts",
    "costs_unprompted",
    "model",
    "proxy",
    "prompt_version",
    "seed",
    "failure",
]


def persona_rows(
    pairs: Iterable[tuple[Subject, Persona]], *, sources: dict[str, tuple[str, ...]], seed: int, proxy: bool
) -> pd.DataFrame:
    """One row per generated persona, with the subject it describes (`sources`: persona key → source ids)."""
    rows = [
        {
            "persona_id": p.key,
            "scenario": p.scenario,
            "role": p.role,
            "source_ids": list(sources.get(p.key, ())),
            "role_desc": s.role_desc,
            "info": s.info,
            "assigned": p.assigned,
            "levels": p.levels,
            "style": p.style,
            "legal_sense": p.legal_sense,
            "legal_sense_text": p.legal_sense_text,
            "withheld_field": p.withheld_field,
            "vague_facts": p.vague_facts,
            "costs_unprompted": p.costs_unprompted,
            "model": p.model,
            "proxy": proxy,
            "prompt_version": PROMPT_VERSION,
            "seed": seed,
            "failure": p.failure,
        }
        for s, p in pairs
    ]
    return pd.DataFrame(rows, columns=COLUMNS).sort_values("persona_id", kind="stable").reset_index(drop=True)


def personas_from(frame: pd.DataFrame) -> dict[str, Persona]:
    """The personas of a personas table, by id."""
    out = {}
    for r in frame.to_dict("records"):
        style, failure = r["style"], r["failure"]
        out[r["persona_id"]] = Persona(
            key=r["persona_id"],
            scenario=r["scenario"],
            role=r["role"],
            assigned=r["assigned"],
            levels=r["levels"],
            style=style if isinstance(style, str) else None,
            legal_sense=int(r["legal_sense"]),
            legal_sense_text=r["legal_sense_text"],
            withheld_field=r["withheld_field"] or None,
            vague_facts=bool(r["vague_facts"]),
            costs_unprompted=bool(r["costs_unprompted"]),
            model=r["model"],
            failure=failure if isinstance(failure, str) else None,
        )
    return out

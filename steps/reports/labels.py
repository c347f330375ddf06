"""Honest row labels shared by every report: scripted stand-ins, limited runs, and the paper model an agent is.

A row from a run that sent only the first N items (the run's `run.json` records `limit`) is marked `[limit N]`,
so it is never read as a full-size result; each report also shows the `n` a row averages.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping


def agent_label(name: str, scripted: bool = False, limit: int | None = None) -> str:
    """`name`, then `[scripted]` for an offline stand-in and `[limit N]` for a run limited to N items."""
    return name + (" [scripted]" if scripted else "") + (f" [limit {limit}]" if limit is not None else "")


def size_phrase(sizes: Iterable[int], unit: str) -> str:
    """What a header may say about the rows' sizes: one number when every row has it, else the range."""
    values = sorted({int(s) for s in sizes})
    tail = f" {unit}" if unit else ""
    if not values:
        return f"none{tail}"
    if len(values) == 1:
        return f"{values[0]:,}{tail}"
    return f"{values[0]:,}–{values[-1]:,}{tail} (each row's `n`)"


def name_key(name: str) -> str:
    """A model name for matching: lower case, letters and digits only (`GPT-4o` and `gpt4o` are one key)."""
    return re.sub(r"[^0-9a-z]", "", name.lower())


def paper_model_name(
    paper_model: str | Mapping[str, str] | None, benchmark: str, names: Mapping[str, Iterable[str]]
) -> str | None:
    """The paper's name for an agent's `paper_model` in one benchmark's paper, or None when that paper has no such
    model. `names` maps each paper model to its other spellings; a mapping `paper_model` names one model per
    benchmark and must match it (a ValueError says which names the paper has)."""
    if paper_model is None:
        return None
    wanted = paper_model.get(benchmark) if isinstance(paper_model, Mapping) else paper_model
    if wanted is None:
        return None
    keys = {name_key(s): model for model, spellings in names.items() for s in (model, *spellings)}
    found = keys.get(name_key(wanted))
    if found is None and isinstance(paper_model, Mapping):
        raise ValueError(
            f"paper_model.{benchmark}: '{wanted}' is not a model of the {benchmark} paper ({', '.join(names)})"
        )
    return found


def agent_paper_model(
    name: str, paper_model: str | Mapping[str, str] | None, benchmark: str, names: Mapping[str, Iterable[str]]
) -> str | None:
    """`paper_model_name` of agent `name`'s `paper_model` (its entry in params.yaml); an error names the key."""
    try:
        return paper_model_name(paper_model, benchmark, names)
    except ValueError as err:
        raise ValueError(f"agents.{name}.{err}") from None

"""III-3 crime accuracy: the court's charges in the agent's criminal judgment (spec j1-envs §5.9, §9.3-17).

The predicted charges are read with the extraction parser: the sentence in the rulings (被告人X犯Y罪…), or,
when the rulings name none, every charge the judgment names with 犯…罪 or 构成…罪. Names compare without 罪
and whitespace. III-3 is 1 only when every charge of the court is predicted (strict); the matched fraction is
kept as partial credit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from steps.j1.extract.sections import judgment_parts
from steps.j1.extract.verdict import charges_named, read_sentence


def charge_key(name: str) -> str:
    """A charge name for comparison: no whitespace, no trailing 罪 (盗窃罪 → 盗窃)."""
    return re.sub(r"\s+", "", name).removesuffix("罪")


@dataclass(frozen=True)
class CrimeAccuracy:
    value: float | None  # None when the court has no charge to compare with
    matched_fraction: float | None
    truth: tuple[str, ...]
    predicted: tuple[str, ...]
    source: str  # rulings | judgment | none


def predicted_charges(judgment: str, defendant: str | None = None) -> tuple[tuple[str, ...], str]:
    """The charges the agent convicts of, and where they were read (rulings, else the whole judgment)."""
    rulings = judgment_parts(judgment).rulings
    if rulings:
        sentence, _ = read_sentence(rulings, [defendant] if defendant else [])
        if sentence is not None and sentence.charges:
            return tuple(charge_key(c) for c in sentence.charges), "rulings"
    named = charges_named(judgment)
    return tuple(charge_key(c) for c in named), "judgment" if named else "none"


def crime_accuracy(judgment: str | None, truth: Sequence[str], *, defendant: str | None = None) -> CrimeAccuracy:
    """III-3 of one case; a missing judgment predicts nothing (0)."""
    gt = tuple(dict.fromkeys(charge_key(c) for c in truth if c.strip()))
    predicted, source = predicted_charges(judgment, defendant) if judgment else ((), "none")
    if not gt:
        return CrimeAccuracy(None, None, gt, predicted, source)
    found = sum(c in predicted for c in gt)
    return CrimeAccuracy(float(found == len(gt)), found / len(gt), gt, predicted, source)

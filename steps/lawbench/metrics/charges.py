"""Task 3-3 charge prediction: set F1 over LawBench's 189 charge names (spec §5, 3-3)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from importlib import resources

from steps.lawbench.metrics.result import TaskScore, require_items, strip_prefix
from steps.lawbench.metrics.setf1 import score_label_sets


@cache
def charge_names() -> tuple[str, ...]:
    """The 189 option names of LawBench's `ljp_accusation.py` (data file `charges.txt` beside this module).

    13 gold charges (e.g. 爆炸, 走私) are not in the list and can never be matched; names nested in other
    names (诈骗 in 合同诈骗) are all found by substring search. Both deliberate, for parity.
    """
    text = resources.files("steps.lawbench.metrics").joinpath("charges.txt").read_text(encoding="utf-8")
    return tuple(line for line in text.splitlines() if line)


def gold_charges(idx: int, reference: str) -> list[str]:
    """`罪名:c1;c2` -> [c1, c2]."""
    return strip_prefix("3-3", idx, reference, "罪名:").replace("罪名:", "").split(";")


def score_charge_prediction(predictions: Sequence[str], references: Sequence[str]) -> TaskScore:
    """3-3: mean set F1 of the charge names found in each prediction; abstention = none found."""
    require_items("3-3", predictions, references)
    golds = [gold_charges(i, r) for i, r in enumerate(references)]
    return score_label_sets("3-3", predictions, golds, charge_names())

"""Character-bigram overlap of two texts: what the scripted models (simulated users, oracles, proxy judges) compare
texts by. Kept out of steps.judges so that a simulation's scripted roles do not import the judge kernel (a changed
judge then reruns only the judge stages: flows/dvc_yaml.py)."""

from __future__ import annotations

import itertools
from collections import Counter


def bigrams(text: str) -> Counter[str]:
    """The character bigrams of `text`'s alphanumeric characters, counted."""
    chars = [ch for ch in text if ch.isalnum()]
    return Counter(a + b for a, b in itertools.pairwise(chars))


def overlap(reference: str, candidate: str) -> float:
    """F1 of the character bigrams (alphanumeric characters only) of two texts; 0 when either is empty."""
    ref, cand = bigrams(reference), bigrams(candidate)
    common = sum((ref & cand).values())
    if not common:
        return 0.0
    precision, recall = common / sum(cand.values()), common / sum(ref.values())
    return 2 * precision * recall / (precision + recall)


def coverage(source: str, response: str) -> float:
    """Share of `source`'s character bigrams found in `response`."""
    wanted, found = bigrams(source), bigrams(response)
    return sum((wanted & found).values()) / sum(wanted.values()) if wanted else 0.0

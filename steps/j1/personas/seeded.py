"""Reproducible randomness: one RNG per (seed, keys), independent of processing order."""

from __future__ import annotations

import hashlib
import random


def rng_for(seed: int, *keys: str) -> random.Random:
    digest = hashlib.sha256("\x1f".join([str(seed), *keys]).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))

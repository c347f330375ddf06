"""Chinese numerals to Arabic digits with cn2an 0.5.22, the version LawBench's published scores used."""

from __future__ import annotations

import warnings

import cn2an


def to_arabic(text: str) -> str:
    """`cn2an.transform(text, "cn2an")`, silencing its per-run warnings for unconvertible numerals.

    Must stay on cn2an 0.5.22: 0.5.24 only converts 两/半 before measure words and treats 〇 differently,
    which changes 21 published 3-1/3-4/3-5 cells (spec §8).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cn2an.transform(text, "cn2an")

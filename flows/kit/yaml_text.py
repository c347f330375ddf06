"""YAML text read by libyaml's parser when PyYAML was built with it (about a tenth of the pure-Python parser's time:
dvc.yaml, dvc.lock and params.yaml are read by every stage), else by PyYAML's own; the same safe constructors."""

from __future__ import annotations

from typing import Any

import yaml

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load(text: str) -> Any:
    """`yaml.safe_load(text)`, by the fastest parser PyYAML has."""
    return yaml.load(text, Loader=LOADER)

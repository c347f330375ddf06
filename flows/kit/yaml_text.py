"""YAML text read by libyaml's parser when PyYAML was built with it (about a tenth of the pure-Python parser's time:
dvc.yaml, dvc.lock and params.yaml are read by every stage), else by PyYAML's own; the same safe constructors.

`load(text, unique_keys=True)` (params.yaml) also refuses a key written twice in one mapping: YAML's loaders keep the
last one silently, so an edit lower in the file would quietly override the setting above it."""

from __future__ import annotations

from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.error import Mark
from yaml.nodes import MappingNode, Node, SequenceNode

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MERGE_TAG = "tag:yaml.org,2002:merge"


class DuplicateKeyError(ConstructorError):
    """A mapping holds the same key twice; `problem_mark` points at the second one, `first_line` (1-based) at the
    first."""

    def __init__(self, key: Any, first: Mark, second: Mark) -> None:
        super().__init__(None, None, f"duplicate key {key!r} (first at line {first.line + 1})", second)
        self.first_line = first.line + 1

    def key_path(self, text: str) -> str:
        """The dotted path of the repeated key in `text` (the document it was raised for), e.g. `agents.oracle`."""
        mark = self.problem_mark
        found = _path_to(yaml.compose(text, Loader=yaml.SafeLoader), (mark.line, mark.column)) if mark else None
        return ".".join(found or [])


def _path_to(node: Node | None, at: tuple[int, int], path: tuple[str, ...] = ()) -> list[str] | None:
    """The keys leading to the key node that starts at (line, column), or None when it is not under `node`."""
    if isinstance(node, MappingNode):
        for key, value in node.value:
            here = (*path, str(key.value))
            if (key.start_mark.line, key.start_mark.column) == at:
                return list(here)
            if (found := _path_to(value, at, here)) is not None:
                return found
    elif isinstance(node, SequenceNode):
        for i, item in enumerate(node.value):
            if (found := _path_to(item, at, (*path, str(i)))) is not None:
                return found
    return None


class _UniqueKeys:
    """A constructor mix-in: a mapping's explicit keys (not those a `<<` merge brings, which they may override)
    must differ."""

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        first: dict[Any, Any] = {}
        for key_node, _ in node.value:
            if key_node.tag == MERGE_TAG:
                continue
            key = self.construct_object(key_node, deep=True)  # type: ignore[attr-defined]
            try:
                earlier = first.setdefault(key, key_node)
            except TypeError:  # an unhashable key: the constructor below says so
                continue
            if earlier is not key_node:
                raise DuplicateKeyError(key, earlier.start_mark, key_node.start_mark)
        return super().construct_mapping(node, deep=deep)  # type: ignore[misc]


class UniqueLoader(_UniqueKeys, LOADER):  # type: ignore[misc, valid-type]
    """The fast loader, refusing duplicate keys."""


class UniquePyLoader(_UniqueKeys, yaml.SafeLoader):
    """The pure-Python loader (its error messages carry positions), refusing duplicate keys."""


def load(text: str, unique_keys: bool = False, pure: bool = False) -> Any:
    """`yaml.safe_load(text)`, by the fastest parser PyYAML has (`pure`: its own); `unique_keys`: a key written
    twice in one mapping raises DuplicateKeyError."""
    if unique_keys:
        return yaml.load(text, Loader=UniquePyLoader if pure else UniqueLoader)
    return yaml.load(text, Loader=yaml.SafeLoader if pure else LOADER)

"""`dvc` with a cheaper dvc.lock update: `python -m flows.dvc_cli ARGS` is `dvc ARGS` (`command(*args)` builds it).

After every stage it runs, DVC rewrites dvc.lock: it reads the whole file with ruamel's round-trip loader (pure Python,
so that comments survive) and dumps it back. Our lock lists every stage's code dependencies (some 1,200 entries,
170 KB), so each rewrite cost about 1 s of CPU, as much as a whole stage of the small run. Here the file is read with
ruamel's C loader instead and dumped by DVC's own dumper, which writes the same bytes for the same data: a lock DVC
wrote comes out byte for byte as DVC would write it (tests/test_dvc_lock.py). A lock holding a `#` (a comment, which
only the round-trip loader keeps) is left to DVC's loader. `make run`, `jurisflow agents run` and the tests'
pipelines run DVC this way; a plain `dvc repro` does the same work, only slower (perf/dvc_lock.py measures).

Within one `dvc repro` the rewrites repeat themselves: each reads back the file the previous one wrote and dumps again
the ~40 stage entries that did not change. `LockWriter` keeps what it wrote: the data behind the last file (handed
back, as a copy, when DVC reads that same text again) and each stage's dumped YAML (reused while the stage's entry is
unchanged). A stage's YAML is dumped by DVC's dumper as the document `stages: {name: entry}`, so it sits at the
depth and column it has in the whole file, and the file is the head and the stages' blocks in order: the same bytes
as one dump of the whole, which is what happens whenever the data is not plain dicts, lists and scalars or holds one
object twice (where the dumper writes an anchor).
"""

from __future__ import annotations

import io
import pickle
import sys
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

MODULE = "flows.dvc_cli"


def command(*args: str) -> list[str]:
    """The command line of `dvc ARGS` through this module, with this interpreter. `-P`: the module is this
    installation's, whatever the working directory holds (a project copy may hold another `flows`)."""
    return [sys.executable, "-P", "-m", MODULE, *args]


def parse_lock_for_update(text: str, path: str | Path) -> Any:
    """What DVC's `parse_yaml_for_update` returns for a file it is about to rewrite, read by ruamel's C loader
    unless the text may hold a comment."""
    from dvc.utils.serialize import _yaml

    if "#" in text:
        return _yaml.parse_yaml(text, path, typ="rt")
    return _yaml.parse_yaml(text, path, typ="safe")  # C loader (ruamel.yaml.clib), plain dicts in file order


_SCALARS = (str, int, float, bool, type(None))  # bool is an int, listed for the reader
_CONTAINERS = (dict, OrderedDict, list)


def _plain(data: Any) -> bool:
    """Only dicts, lists and scalars of the built-in types, and no container twice (the dumper would anchor it)."""
    seen: set[int] = set()
    todo = [data]
    while todo:
        item = todo.pop()
        kind = type(item)
        if kind in _SCALARS:
            continue
        if kind not in _CONTAINERS or id(item) in seen:
            return False
        seen.add(id(item))
        if kind is list:
            todo.extend(item)
        else:
            if any(type(key) is not str for key in item):
                return False
            todo.extend(item.values())
    return True


class LockWriter:
    """DVC's dvc.lock rewrites, reusing what the previous rewrite wrote (see the module docstring)."""

    def __init__(self, dump: Callable[[Any, IO[str]], Any]) -> None:
        self._dump = dump  # DVC's own dumper: everything this writer writes comes from it
        self._blocks: dict[str, tuple[str, str]] = {}  # stage name → (repr of its entry, its YAML)
        self._last: tuple[str, bytes] | None = None  # (text last written, the data it was dumped from, pickled)

    def parse(self, text: str, path: str | Path) -> Any:
        """`parse_yaml_for_update`: a copy of the data behind `text` if this writer wrote it last, else a parse."""
        if self._last is not None and self._last[0] == text:
            return pickle.loads(self._last[1])
        return parse_lock_for_update(text, path)

    def dump(self, data: Any, stream: IO[str]) -> None:
        """DVC's `_dump`: a lock built from cached stage blocks, anything else by DVC's dumper."""
        text = self._lock_text(data)
        if text is None:
            self._dump(data, stream)
            return
        stream.write(text)
        self._last = (text, pickle.dumps(data))

    def _yaml(self, data: Any) -> str:
        stream = io.StringIO()
        self._dump(data, stream)
        return stream.getvalue()

    def _lock_text(self, data: Any) -> str | None:
        """The whole lock, or None when `data` is not a plain lock (DVC's dumper then writes it whole)."""
        if type(data) is not dict or list(data) != ["schema", "stages"]:
            return None
        stages = data["stages"]
        if type(stages) not in (dict, OrderedDict) or not stages or not _plain(data):
            return None
        parts = [self._yaml({"schema": data["schema"]}), "stages:\n"]
        for name, entry in stages.items():
            key = repr(entry)
            known = self._blocks.get(name)
            if known is None or known[0] != key:
                block = self._yaml({"stages": {name: entry}})
                if not block.startswith("stages:\n"):
                    return None
                known = self._blocks[name] = (key, block.removeprefix("stages:\n"))
            parts.append(known[1])
        return "".join(parts)


def install() -> LockWriter:
    """Make DVC's YAML rewrites (dvc.lock after each stage) go through a `LockWriter`."""
    from dvc.utils.serialize import _yaml

    writer = LockWriter(_yaml._dump)
    _yaml.parse_yaml_for_update = writer.parse  # modify_yaml looks both up at each call
    _yaml._dump = writer.dump
    return writer


def main(argv: list[str] | None = None) -> int:
    install()
    from dvc.cli import main as dvc_main

    return dvc_main(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())

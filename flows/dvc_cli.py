"""`dvc` with a cheaper dvc.lock update: `python -m flows.dvc_cli ARGS` is `dvc ARGS` (`command(*args)` builds it).

After every stage it runs, DVC rewrites dvc.lock: it reads the whole file with ruamel's round-trip loader (pure Python,
so that comments survive) and dumps it back. Our lock lists every stage's code dependencies (some 1,200 entries,
170 KB), so each rewrite cost about 1 s of CPU, as much as a whole stage of the small run. Here the file is read with
ruamel's C loader instead and dumped by DVC's own dumper, which writes the same bytes for the same data: a lock DVC
wrote comes out byte for byte as DVC would write it (tests/test_dvc_lock.py). A lock holding a `#` (a comment, which
only the round-trip loader keeps) is left to DVC's loader. `make run`, `jurisflow agents run` and the tests'
pipelines run DVC this way; a plain `dvc repro` does the same work, only slower (benchmarks/dvc_lock.py measures).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

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


def install() -> None:
    """Make DVC's YAML rewrites (dvc.lock after each stage) read with `parse_lock_for_update`."""
    from dvc.utils.serialize import _yaml

    _yaml.parse_yaml_for_update = parse_lock_for_update  # modify_yaml looks it up at each call


def main(argv: list[str] | None = None) -> int:
    install()
    from dvc.cli import main as dvc_main

    return dvc_main(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())

"""The papers' published tables: one CSV file per table, beside its benchmark (`steps/<benchmark>/paper_tables/`).

A file starts with its provenance, one `# key: value` line each, then the table as printed (same rows, same
columns, the numbers exactly as the paper prints them):

    # paper: Gan et al., UCL-Bench: A Chinese User-Centric Legal Benchmark for Large Language Models
    # table: Table 3, win rates against ChatGPT (%)
    # where: §4.2 Main Results
    # missing: -                 (optional: how the paper prints a missing cell; default an empty cell)
    # note: ...                  (optional)
    model,1-1,2-1,...

`paper`, `table` and `where` (page or section) are required. Tests compare cells with the papers' text.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

REQUIRED = ("paper", "table", "where")
OPTIONAL = ("missing", "note")


@dataclass(frozen=True)
class PaperTable:
    """A published table and where it was printed."""

    path: Path
    paper: str
    table: str
    where: str
    frame: pd.DataFrame
    note: str = ""


def _provenance(path: Path, lines: list[str]) -> tuple[dict[str, str], int]:
    """The `# key: value` lines at the top of a table file, and how many lines they take."""
    found: dict[str, str] = {}
    count = 0
    for line in lines:
        if not line.startswith("#"):
            break
        key, sep, value = line[1:].partition(":")
        key = key.strip()
        if not sep or key not in (*REQUIRED, *OPTIONAL):
            raise ValueError(
                f"{path}:{count + 1}: a provenance line is `# key: value` with key in "
                f"{', '.join((*REQUIRED, *OPTIONAL))}, not {line!r}"
            )
        found[key] = value.strip()
        count += 1
    missing = [k for k in REQUIRED if not found.get(k)]
    if missing:
        raise ValueError(f"{path}: the table names no {', '.join(missing)} (a `# {missing[0]}: …` line)")
    return found, count


def load_paper_table(path: Path) -> PaperTable:
    """Read a paper table file: its provenance and its cells (a missing cell is NaN; nothing else is)."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such paper table")
    lines = path.read_text(encoding="utf-8").splitlines()
    meta, skip = _provenance(path, lines)
    missing = meta.get("missing", "")
    frame = pd.read_csv(io.StringIO("\n".join(lines[skip:])), keep_default_na=False, na_values=sorted({"", missing}))
    return PaperTable(path, meta["paper"], meta["table"], meta["where"], frame, meta.get("note", ""))

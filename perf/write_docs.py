"""Write docs/performance.md from the records under perf/results/ (`make perf-docs`); `--check` only compares.

One table per topic, the newest record of each figure (by date; a later line wins a tie), in the order the figures
first appear. Under each topic's heading, the first sentence of each script that recorded it says what it measures.

    python perf/write_docs.py [--check]
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "perf" / "results"
PAGE = ROOT / "docs" / "performance.md"

HEADER = """# Performance

<!-- Written by perf/write_docs.py from perf/results/*.jsonl; do not edit by hand: `make perf-docs`. -->

Every figure measured on this project, one table per topic: the newest value of each figure, the command that
measured it (from the project root), the date, the commit measured (`-dirty`: with uncommitted changes) and the
machine (its cores and memory, and the load it was under: on a shared machine wall times move with the load, CPU
times much less). Each script under `perf/` runs ours side by side with a reference or the ideal in one run; run it
with `--record` to append its figures to `perf/results/<script>.jsonl`, then `make perf-docs` rewrites this page.
The files keep every earlier record. Figures measured before the scripts wrote records were carried over from the
notes of the time, with the date and machine those notes gave, and the commit they named (else the commit that
first recorded the figure).
"""


def read_records(results: Path = RESULTS) -> list[tuple[str, dict[str, str]]]:
    """(script, record) for every line of every results file, files in name order, lines in order."""
    out = []
    for path in sorted(results.glob("*.jsonl")):
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise SystemExit(f"{shown}: line {number}: not JSON ({error.msg})") from None
            missing = [
                k for k in ("topic", "figure", "value", "command", "date", "commit", "machine") if k not in record
            ]
            if missing:
                raise SystemExit(f"{shown}: line {number}: missing {', '.join(missing)}")
            out.append((path.stem, {k: str(v) for k, v in record.items()}))
    return out


def purpose(script: str) -> str | None:
    """The first sentence of perf/<script>.py's docstring, if the script exists."""
    path = ROOT / "perf" / f"{script}.py"
    if not path.exists():
        return None
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    first = " ".join(doc.split("\n\n")[0].split())
    return first or None


def cell(text: str, code: bool = False) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return f"`{text}`" if code and text else text


def render(records: list[tuple[str, dict[str, str]]]) -> str:
    """The page for these records."""
    topics: dict[str, dict[str, dict[str, str]]] = {}
    scripts: dict[str, list[str]] = {}
    for script, r in records:
        figures = topics.setdefault(r["topic"], {})
        if r["figure"] not in figures or r["date"] >= figures[r["figure"]]["date"]:
            figures[r["figure"]] = r
        if script not in scripts.setdefault(r["topic"], []):
            scripts[r["topic"]].append(script)
    parts = [HEADER]
    for topic, figures in topics.items():
        parts.append(f"\n## {topic}\n")
        about = [f"`perf/{s}.py`: {p}" for s in scripts[topic] if (p := purpose(s))]
        if about:
            parts.append("\n" + "\n".join(f"- {a}" for a in about) + "\n")
        parts.append("\n| figure | value | command | date | commit | machine |\n|---|---|---|---|---|---|\n")
        for r in figures.values():
            row = (cell(r["figure"]), cell(r["value"]), cell(r["command"], code=True), r["date"], cell(r["commit"]))
            parts.append("| " + " | ".join((*row, cell(r["machine"]))) + " |\n")
    return "".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/performance.md is not what it writes")
    args = parser.parse_args()
    records = read_records()
    page = render(records)
    if args.check:
        if not PAGE.exists() or PAGE.read_text(encoding="utf-8") != page:
            sys.exit("docs/performance.md is not what perf/write_docs.py writes from perf/results/: run make perf-docs")
        return
    PAGE.write_text(page, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)} from {len(records)} records")


if __name__ == "__main__":
    main()

"""Strict readers for JSON, JSON Lines and CSV files that report the file, line and rule on failure."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from steps.sources.errors import SourceFormatError


def read_text(path: Path, label: str | None = None) -> str:
    """Read a file as strict UTF-8 (a leading BOM is dropped); name the byte offset of bad bytes."""
    label = label or str(path)
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise SourceFormatError(label, f"line {line} (byte {e.start})", f"not valid UTF-8 ({e.reason})") from None


def read_json(path: Path, label: str | None = None) -> Any:
    """Parse a whole-file JSON document; a truncated or malformed file names the line and column."""
    label = label or str(path)
    text = read_text(path, label)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        rule = "file ends before the JSON document is complete (truncated?)" if e.pos >= len(text.rstrip()) else e.msg
        raise SourceFormatError(label, f"line {e.lineno} column {e.colno}", f"invalid JSON: {rule}") from None


def read_json_array(path: Path, label: str | None = None, of: str = "") -> list[Any]:
    """A whole-file JSON document that must be an array (`of` names its entries in the error)."""
    label = label or str(path)
    value = read_json(path, label)
    if not isinstance(value, list):
        raise SourceFormatError(label, "top level", "expected a JSON array" + (f" of {of}" if of else ""))
    return value


def read_jsonl(path: Path, label: str | None = None) -> list[tuple[int, Any]]:
    """Parse JSON Lines; returns (1-based line number, value) pairs and skips blank lines."""
    label = label or str(path)
    rows: list[tuple[int, Any]] = []
    for lineno, line in enumerate(read_text(path, label).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append((lineno, json.loads(line)))
        except json.JSONDecodeError as e:
            raise SourceFormatError(
                label, f"line {lineno} column {e.colno}", f"invalid JSON Lines record: {e.msg}"
            ) from None
    return rows


def read_csv_records(path: Path, required: list[str], label: str | None = None) -> list[dict[str, str]]:
    """Read a CSV with a header row; every required column must be present and every row complete."""
    label = label or str(path)
    reader = csv.DictReader(io.StringIO(read_text(path, label)))
    missing = [c for c in required if c not in (reader.fieldnames or [])]
    if missing:
        raise SourceFormatError(label, "header", f"missing column(s) {', '.join(missing)}")
    rows = []
    for lineno, row in enumerate(reader, start=2):
        if any(row.get(c) in (None, "") for c in required):
            raise SourceFormatError(label, f"line {lineno}", f"empty value in one of {', '.join(required)}")
        rows.append(row)
    return rows


def require_keys(record: Any, keys: list[str], *, file: str, where: str) -> dict[str, Any]:
    """Check that a record is an object holding every key; name the first missing one."""
    if not isinstance(record, dict):
        raise SourceFormatError(file, where, f"expected a JSON object, found {type(record).__name__}")
    for key in keys:
        if key not in record:
            raise SourceFormatError(file, where, f"required field '{key}' is missing")
    return record


def count_rows(path: Path, label: str | None = None) -> int:
    """Top-level records of a source file, as sources.yaml's `rows` counts them: data rows of a CSV (after the
    header), non-blank lines of JSON Lines (any file whose first non-blank line is a whole JSON value and which
    has more lines), elements of a JSON array, keys of a JSON object (1 for any other JSON value), non-blank lines
    of a plain-text `.txt` list (counted on the bytes: LawBench's Cilin is GBK)."""
    label = label or str(path)
    if path.suffix == ".txt":
        return sum(1 for line in path.read_bytes().split(b"\n") if line.strip())
    text = read_text(path, label)
    if path.suffix == ".csv":
        return max(sum(1 for record in csv.reader(io.StringIO(text)) if record) - 1, 0)
    lines = [line for line in text.splitlines() if line.strip()]
    if path.suffix == ".jsonl" or (len(lines) > 1 and _is_json(lines[0])):
        return len(lines)
    doc = read_json(path, label)
    return len(doc) if isinstance(doc, list | dict) else 1


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True

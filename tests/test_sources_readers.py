"""Malformed source files end with a message naming the file, the line and the rule."""

from __future__ import annotations

import json

import pytest

from steps.sources import SourceFormatError
from steps.sources.readers import read_csv_records, read_json, read_jsonl


def test_truncated_json_names_line_and_says_truncated(tmp_path):
    p = tmp_path / "t.json"
    p.write_text('[\n  {"a": 1},\n  {"a": 2', encoding="utf-8")
    with pytest.raises(SourceFormatError) as e:
        read_json(p)
    assert str(e.value).startswith(f"{p}: line 3 column")
    assert "truncated" in str(e.value)


def test_non_utf8_json_names_line_and_byte(tmp_path):
    p = tmp_path / "gbk.json"
    p.write_bytes(b'[\n"ok",\n"' + "法律".encode("gbk") + b'"]')
    with pytest.raises(SourceFormatError, match=r"gbk.json: line 3 \(byte 9\): not valid UTF-8"):
        read_json(p)


def test_jsonl_broken_line_reports_its_line_number(tmp_path):
    p = tmp_path / "x.jsonl"
    lines = [json.dumps({"n": i}) for i in range(5)]
    lines[3] = '{"n": 3,'
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(SourceFormatError, match=r"x.jsonl: line 4 column \d+: invalid JSON Lines record"):
        read_jsonl(p)


def test_jsonl_skips_blank_lines_and_keeps_numbers(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text('{"n": 1}\n\n{"n": 2}\n', encoding="utf-8")
    assert read_jsonl(p) == [(1, {"n": 1}), (3, {"n": 2})]


def test_csv_missing_column_and_empty_value(tmp_path):
    p = tmp_path / "r.csv"
    p.write_text("task,score\n1-1,0.5\n", encoding="utf-8")
    with pytest.raises(SourceFormatError, match="header: missing column"):
        read_csv_records(p, ["task", "model_name", "score"])
    p.write_text("task,model_name,score\n1-1,A,0.5\n1-2,,0.1\n", encoding="utf-8")
    with pytest.raises(SourceFormatError, match=r"r\.csv: line 3: empty value"):
        read_csv_records(p, ["task", "model_name", "score"])

"""The papers' tables as CSV files: every file names its provenance, and its cells are the papers' printed
values (compared with the papers' text in ../shared/seeds/, so a transcription error fails here)."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from steps.reports.paper_tables import load_paper_table

ROOT = Path(__file__).resolve().parents[2]
SEEDS = [ROOT.parent / "shared" / "seeds", Path("/work/shared/seeds")]
TABLES = sorted(ROOT.glob("steps/*/paper_tables/*.csv"))
PAPERS = {
    "ucl": "000_704e49505191f3c5.txt",
    "mile": "002_9b9ac339e65e3b04.txt",
    "plawbench": "003_5a81e6bb4f26474d.txt",
    "j1": "004_f22df78c8cfe60a7.txt",
}


def printed_rows(path: Path) -> list[dict[str, str]]:
    """A table file's rows as the text it holds (no number parsing), provenance lines skipped."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    return list(csv.DictReader(io.StringIO("\n".join(lines))))


def paper_text(package: str) -> list[str]:
    found = next((d / PAPERS[package] for d in SEEDS if (d / PAPERS[package]).is_file()), None)
    if found is None:
        pytest.skip("the papers' text (../shared/seeds/) is not on this machine")
    return found.read_text(encoding="utf-8").split("\n")


def printed_cells(lines: list[str], caption: str, prefix: str) -> list[str]:
    """The cells of the paper's table line that starts with `prefix` (its row label), the last such line before the
    table's caption (`Table 3:`); markup removed, a `mean±std` or `a / b / c` cell split into its numbers."""
    end = next((i for i, line in enumerate(lines) if line.startswith(caption)), None)
    assert end is not None, f"no caption {caption!r} in the paper's text"
    line = next((line for line in reversed(lines[:end]) if line.startswith(prefix)), None)
    assert line is not None, f"no line starting with {prefix!r} before {caption!r}"
    cells = [re.sub(r"<[^>]+>|\*", "", c).strip() for c in line.split("\t")[1:]]
    while cells and not cells[-1]:
        cells.pop()
    return [part.strip() for c in cells for part in re.split(r"±| / ", c)]


def mismatches(row: dict[str, str], columns: list[str], printed: list[str]) -> list[str]:
    """The columns whose cell differs from the printed one (`column: ours != printed`)."""
    if len(printed) != len(columns):
        return [f"{len(columns)} columns, the paper prints {len(printed)} cells"]
    return [f"{c}: {row[c]} != {p}" for c, p in zip(columns, printed, strict=True) if row[c] != p]


NOT_PRINTED = {"aliases", "group"}  # other spellings of a model (ours) and the table's block of rows


def row_of(file: str, label: str) -> tuple[dict[str, str], list[str]]:
    """The file's row whose label (its first column after `group`) is `label`, and its printed columns."""
    rows = printed_rows(ROOT / file)
    key = next(c for c in rows[0] if c not in NOT_PRINTED)
    row = next(r for r in rows if r[key] == label)
    return row, [c for c in row if c not in NOT_PRINTED and c != key]


# (table file, the paper's caption, the paper's row label as its text starts the line, the file's row label)
CELLS = [
    ("steps/ucl/paper_tables/table3.csv", "Table 3:", "GPT-4\t", "GPT-4"),
    ("steps/ucl/paper_tables/table3.csv", "Table 3:", "Wisdom. 7B\t", "Wisdom-Interrogatory 7B"),
    ("steps/ucl/paper_tables/table3.csv", "Table 3:", "OpenAI o1-preview\t", "OpenAI o1-preview"),
    ("steps/mile/paper_tables/table1.csv", "Table 1:", "GPT-40\t", "GPT-4o"),
    ("steps/mile/paper_tables/table1.csv", "Table 1:", "SynthLaw 7B\t", "SynthLaw-7B"),
    ("steps/mile/paper_tables/table2.csv", "Table 2:", "Mistral-instv 0.3_{7B}\t", "Mistral-instruct-v0.3-7B"),
    ("steps/mile/paper_tables/table2.csv", "Table 2:", "SynthLaw 7B\t", "SynthLaw-7B"),
    ("steps/mile/paper_tables/table3.csv", "Table 3:", "Human\t", "Human"),
    ("steps/plawbench/paper_tables/table2.csv", "Table 2:", "Total Question Num.\t", "questions"),
    ("steps/plawbench/paper_tables/table2.csv", "Table 2:", "Rubrics Num.(avg.)\t", "rubric_items_avg"),
    ("steps/plawbench/paper_tables/table3.csv", "Table 3:", "GPT-4o-20240806\t", "GPT-4o-20240806"),
    ("steps/plawbench/paper_tables/table3.csv", "Table 3:", "Qwen3-Max\t", "Qwen3-Max"),
    ("steps/plawbench/paper_tables/table4.csv", "Table 4:", "Qwen3-Max\t", "Qwen3-Max"),
    ("steps/j1/eval/paper_tables/table3.csv", "Table 3:", "GPT-4o\t", "GPT-4o"),
    ("steps/j1/eval/paper_tables/table3.csv", "Table 3:", "Chatlaw2 <sub>7B</sub>\t", "Chatlaw2 7B"),
    ("steps/j1/eval/paper_tables/table6.csv", "Table 6:", "Qwen3 <sub>4B</sub>\t", "Qwen3 4B"),
    ("steps/j1/eval/paper_tables/table7.csv", "Table 7:", "Claude-3.7\t", "Claude-3.7"),
    ("steps/j1/eval/paper_tables/table8.csv", "Table 8:", "Deepseek-r1 <sub>671B</sub>\t", "Deepseek-r1 671B"),
    ("steps/j1/eval/paper_tables/table9.csv", "Table 9:", "Qwen3 <sub>32B</sub>\t", "Qwen3 32B"),
    ("steps/j1/eval/paper_tables/table10.csv", "Table 10:", "LawLLM <sub>13B</sub>\t", "LawLLM 13B"),
    ("steps/j1/eval/paper_tables/table11.csv", "Table 11:", "Qwen3 <sub>32B</sub>\t", "Qwen3 32B"),
    ("steps/j1/eval/paper_tables/table12.csv", "Table 12:", "InternLM3-it <sub>8B</sub>\t", "InternLM3-it 8B"),
]


@pytest.mark.parametrize("path", TABLES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_paper_table_names_its_paper_table_and_place(path):
    table = load_paper_table(path)
    assert table.paper and table.table and table.where
    assert len(table.frame) and not table.frame.columns.duplicated().any()


@pytest.mark.parametrize(("file", "caption", "prefix", "label"), CELLS, ids=lambda v: str(v).strip())
def test_cells_are_the_papers_printed_values(file, caption, prefix, label):
    row, columns = row_of(file, label)
    printed = printed_cells(paper_text(Path(file).parts[1]), caption, prefix)
    if row.get("1-1") == "" and len(printed) == len(columns) - 1:  # UCL o1-preview: 22 numbers for 23 cells
        printed = ["", *printed]
    assert not mismatches(row, columns, printed), (label, mismatches(row, columns, printed))


def test_a_transcription_error_is_caught():
    row, columns = row_of(CELLS[0][0], "GPT-4")
    printed = printed_cells(paper_text("ucl"), "Table 3:", "GPT-4\t")
    assert not mismatches(row, columns, printed)
    assert mismatches({**row, "3-2": "72.5"}, columns, printed) == ["3-2: 72.5 != 27.5"]


def test_a_table_without_provenance_or_with_an_unknown_key_is_refused(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("# paper: P\n# table: Table 1\nmodel,x\nm,1\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"names no where"):
        load_paper_table(path)
    path.write_text("# paper: P\n# table: T\n# where: §1\n# page 3\nmodel,x\nm,1\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"t.csv:4: a provenance line is `# key: value`"):
        load_paper_table(path)
    path.write_text("# paper: P\n# table: T\n# where: §1\n# missing: -\nmodel,x,y\nm,-,2.50\n", encoding="utf-8")
    table = load_paper_table(path)
    assert table.frame.x.isna().all() and table.frame.y.tolist() == [2.5] and table.where == "§1"

"""steps/tables.py: natural_key orders the numbers inside a text by value (artifact rows, task labels)."""

from __future__ import annotations

from steps.tables import natural_key


def test_numbers_inside_a_text_sort_by_value():
    tasks = ["2-10", "2-2", "1-1", "3-1", "2-1", "10-1"]
    assert sorted(tasks, key=natural_key) == ["1-1", "2-1", "2-2", "2-10", "3-1", "10-1"]
    labels = ["dialogues 21-40", "dialogues 1-20", "dialogues 101-120", None]
    assert sorted(labels, key=natural_key) == [None, "dialogues 1-20", "dialogues 21-40", "dialogues 101-120"]
    assert sorted(["KQ", "CD", "LC"], key=natural_key) == ["CD", "KQ", "LC"]  # no number: as text

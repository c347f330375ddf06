"""Where the stages read and write (flows/kit/paths.py), and paths built from configuration stay inside their
parent folder (issue 17, item 4)."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from flows.kit.context import FlowContext
from flows.kit.paths import Paths, safe_child
from steps.j1.eval.stages import write_transcripts
from steps.params import Params

CTX = FlowContext(Params(), Paths())  # writes where it is told


@pytest.mark.parametrize("name", ["..", ".", "", "a/b", "/etc", "../x", "a\\b", "a\0b", ".git", "-rf", "x" * 65])
def test_safe_child_refuses_a_name_that_is_not_one_safe_component(tmp_path, name):
    with pytest.raises(ValueError, match="refusing a path from configuration") as caught:
        safe_child(tmp_path, name)
    assert "\n" not in str(caught.value) and str(tmp_path) in str(caught.value)


def test_safe_child_accepts_plain_names_and_nests(tmp_path):
    assert safe_child(tmp_path, "oracle") == tmp_path / "oracle"
    nested = safe_child(tmp_path, "qwen3_32b", "zero_shot", "0123abcd.jsonl")
    assert nested == tmp_path / "qwen3_32b" / "zero_shot" / "0123abcd.jsonl"


def test_safe_child_refuses_a_symlink_that_leads_outside(tmp_path):
    parent, outside = tmp_path / "runs", tmp_path / "elsewhere"
    parent.mkdir()
    outside.mkdir()
    os.symlink(outside, parent / "agent")
    with pytest.raises(ValueError, match="outside"):
        safe_child(parent, "agent")


def test_the_transcript_cleanup_cannot_delete_outside_the_agents_folder(tmp_path):
    reports = tmp_path / "reports"
    transcripts = reports / "transcripts"
    (transcripts / "oracle").mkdir(parents=True)
    keep = [reports / "j1.md", transcripts / "index.md", transcripts / "oracle" / "other-agent-is-kept.md"]
    for path in keep:
        path.write_text("keep\n", encoding="utf-8")
    empty = pd.DataFrame(columns=["scenario", "instance_id"])
    for agent in ("..", ".", "../..", "oracle/.."):
        with pytest.raises(ValueError, match="refusing"):
            write_transcripts(CTX, empty, empty, transcripts, 2, agent=agent, rid="r", proxy=True)
    assert all(path.is_file() for path in keep)


def test_the_transcript_cleanup_clears_only_the_agents_own_folder(tmp_path):
    transcripts = tmp_path / "reports" / "transcripts"
    (transcripts / "null").mkdir(parents=True)
    (transcripts / "oracle").mkdir()
    (transcripts / "null" / "old.md").write_text("old\n", encoding="utf-8")
    (transcripts / "oracle" / "kept.md").write_text("kept\n", encoding="utf-8")
    empty = pd.DataFrame(columns=["scenario", "instance_id"])
    assert write_transcripts(CTX, empty, empty, transcripts, 2, agent="null", rid="r", proxy=True) == 0
    assert not (transcripts / "null" / "old.md").exists() and (transcripts / "oracle" / "kept.md").is_file()


def test_the_layout_every_stage_derives_its_paths_from(tmp_path):
    paths = Paths(data=tmp_path / "data", reports=tmp_path / "reports", cache=tmp_path / ".cache")
    assert paths.interim == tmp_path / "data/interim"
    assert paths.shared("j1") == tmp_path / "data/j1"
    assert paths.run("j1", "oracle") == tmp_path / "data/j1/runs/oracle"
    assert paths.run("lawbench", "oracle", "zero_shot") == tmp_path / "data/lawbench/runs/oracle/zero_shot"
    assert paths.reference("ucl") == tmp_path / "data/ucl/reference"
    assert paths.journal("mile", "oracle", "0123abcd") == tmp_path / ".cache/journals/mile/oracle/0123abcd.jsonl"
    assert paths.downloads == tmp_path / ".cache/sources"
    for unsafe in ("..", "a/b"):
        with pytest.raises(ValueError, match="refusing"):
            paths.run("j1", unsafe)
        with pytest.raises(ValueError, match="refusing"):
            paths.journal("j1", unsafe, "0123abcd")

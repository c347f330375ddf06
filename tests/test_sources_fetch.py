"""Fetching pinned files: mirror, checksum, upstream download, derivations, and their failure messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from steps.sources import SourceError, fetch, http_download, load_manifest
from steps.sources.pinned import derive
from tests.helpers import sha256_bytes, static_server, write_manifest

PAYLOAD = b'[{"instruction": "i", "question": "q", "answer": "a"}]'


def _manifest(tmp: Path, data: bytes):
    return load_manifest(
        write_manifest(
            tmp / "sources.yaml",
            [{"path": "lawbench/data/zero_shot/1-1.json", "sha256": sha256_bytes(data), "dataset": "lawbench_items"}],
        )
    )


def test_every_manifest_row_is_pinned(manifest, mirror):
    import csv

    rows = list(csv.DictReader((mirror / "MANIFEST.tsv").open(encoding="utf-8"), delimiter="\t"))
    pinned = {f.path: f for f in manifest.files}
    assert len(pinned) == len(rows) == 204
    for row in rows:
        f = pinned[row["path"]]
        assert (f.sha256, f.repo, f.commit, f.upstream_path) == (
            row["sha256"],
            row["upstream_repo"],
            row["upstream_commit"],
            row["upstream_path"],
        )
        assert f.license and f.dataset
        assert bool(f.derivation) == (not row["note"].startswith("byte-identical"))


def test_mirror_copy_is_used_when_checksum_matches(tmp_path):
    (tmp_path / "m/lawbench/data/zero_shot").mkdir(parents=True)
    (tmp_path / "m/lawbench/data/zero_shot/1-1.json").write_bytes(PAYLOAD)
    src = _manifest(tmp_path, PAYLOAD).files[0]
    got = fetch(src, mirror=tmp_path / "m", download_dir=tmp_path / "dl", upstream_url="x", download=None)
    assert got == tmp_path / "m/lawbench/data/zero_shot/1-1.json"


def test_checksum_mismatch_names_file_expected_and_actual(tmp_path):
    (tmp_path / "m/lawbench/data/zero_shot").mkdir(parents=True)
    (tmp_path / "m/lawbench/data/zero_shot/1-1.json").write_bytes(PAYLOAD + b" ")
    src = _manifest(tmp_path, PAYLOAD).files[0]
    with pytest.raises(SourceError) as e:
        fetch(src, mirror=tmp_path / "m", download_dir=tmp_path / "dl", upstream_url="x", download=None)
    msg = str(e.value)
    assert "lawbench/data/zero_shot/1-1.json" in msg and "sha256 mismatch" in msg
    assert src.sha256 in msg and sha256_bytes(PAYLOAD + b" ") in msg
    assert "restore it" in msg and "\n" not in msg


def test_missing_file_without_download_says_how_to_fix(tmp_path):
    (tmp_path / "m").mkdir()
    src = _manifest(tmp_path, PAYLOAD).files[0]
    with pytest.raises(SourceError, match=r"lawbench/data/zero_shot/1-1.json: not in the mirror .*JURISFLOW_MIRROR"):
        fetch(src, mirror=tmp_path / "m", download_dir=tmp_path / "dl", upstream_url="x", download=None)


def test_missing_file_is_downloaded_from_upstream_and_verified(tmp_path):
    up = tmp_path / "upstream/test/repo/c0ffee/lawbench/data/zero_shot"
    up.mkdir(parents=True)
    (up / "1-1.json").write_bytes(PAYLOAD)
    with static_server(tmp_path / "upstream") as base:
        src = _manifest(tmp_path, PAYLOAD).files[0]
        got = fetch(
            src,
            mirror=None,
            download_dir=tmp_path / "dl",
            upstream_url=base + "/{repo}/{commit}/{path}",
            download=http_download(5),
        )
    assert got.read_bytes() == PAYLOAD and got.is_relative_to(tmp_path / "dl")
    # A second fetch uses the verified download without the network.
    again = fetch(src, mirror=None, download_dir=tmp_path / "dl", upstream_url="http://127.0.0.1:9/x", download=None)
    assert again == got


def test_unreachable_upstream_is_one_clear_line(tmp_path):
    src = _manifest(tmp_path, PAYLOAD).files[0]
    with pytest.raises(SourceError) as e:
        fetch(
            src,
            mirror=None,
            download_dir=tmp_path / "dl",
            upstream_url="http://127.0.0.1:9/{repo}/{commit}/{path}",
            download=http_download(2),
        )
    msg = str(e.value)
    assert msg.startswith("lawbench/data/zero_shot/1-1.json: no mirror configured and the upstream download failed")
    assert "http://127.0.0.1:9/test/repo/c0ffee/lawbench/data/zero_shot/1-1.json" in msg and "\n" not in msg
    assert not (tmp_path / "dl").exists()


def test_upstream_with_other_content_is_rejected(tmp_path):
    up = tmp_path / "upstream/test/repo/c0ffee/lawbench/data/zero_shot"
    up.mkdir(parents=True)
    (up / "1-1.json").write_bytes(b"[]")
    with static_server(tmp_path / "upstream") as base:
        src = _manifest(tmp_path, PAYLOAD).files[0]
        with pytest.raises(SourceError, match="sha256 mismatch"):
            fetch(
                src,
                mirror=None,
                download_dir=tmp_path / "dl",
                upstream_url=base + "/{repo}/{commit}/{path}",
                download=http_download(5),
            )
    assert not (tmp_path / "dl/lawbench/data/zero_shot/1-1.json").exists()


def test_head_lines_derivation_is_applied_before_the_checksum(tmp_path):
    full = b"".join(f'{{"n": {i}}}\n'.encode() for i in range(10))
    head = b"".join(f'{{"n": {i}}}\n'.encode() for i in range(4))
    up = tmp_path / "upstream/test/repo/c0ffee/data"
    up.mkdir(parents=True)
    (up / "test.json").write_bytes(full)
    manifest = load_manifest(
        write_manifest(
            tmp_path / "sources.yaml",
            [
                {
                    "path": "judgments/judge/test.json",
                    "upstream_path": "data/test.json",
                    "sha256": sha256_bytes(head),
                    "dataset": "judgments_criminal",
                    "derivation": {"kind": "head_lines", "lines": 4},
                }
            ],
        )
    )
    with static_server(tmp_path / "upstream") as base:
        got = fetch(
            manifest.files[0],
            mirror=None,
            download_dir=tmp_path / "dl",
            upstream_url=base + "/{repo}/{commit}/{path}",
            download=http_download(5),
        )
    assert got.read_bytes() == head


def test_csv_rows_derivation_keeps_header_and_selected_models():
    data = b"task,model_name,score,abstention_rate\n1-1,A,0.1,0\n1-1,B,0.2,0\n1-2,A,0.3,0\n"
    out = derive(data, {"kind": "csv_rows_where", "column": "model_name", "values": ["A"]})
    assert out == b"task,model_name,score,abstention_rate\n1-1,A,0.1,0\n1-2,A,0.3,0\n"


def test_real_derived_mirror_files_are_consistent_with_their_derivation(manifest, mirror):
    """The mirror's results.csv rows are exactly the mirrored models (what the derivation keeps)."""
    for f in manifest.files:
        if f.derivation and f.derivation["kind"] == "csv_rows_where":
            data = (mirror / f.path).read_bytes()
            assert derive(data, f.derivation) == data

"""Test helpers: a loopback static HTTP server, and building small manifests over temporary files."""

from __future__ import annotations

import hashlib
import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import yaml


@contextmanager
def static_server(root: Path) -> Iterator[str]:
    """Serve `root` over HTTP on a free loopback port; yields the base URL."""

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, *args):  # keep test output quiet
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_manifest(
    path: Path, entries: list[dict], upstream_url: str = "http://127.0.0.1:9/{repo}/{commit}/{path}"
) -> Path:
    """Write a sources.yaml with one repo 'test/repo' and the given file entries."""
    files = []
    for e in entries:
        files.append(
            {
                "path": e["path"],
                "repo": "test/repo",
                "upstream_path": e.get("upstream_path", e["path"]),
                "sha256": e["sha256"],
                "bytes": e.get("bytes", 0),
                "dataset": e["dataset"],
                **({"derivation": e["derivation"]} if "derivation" in e else {}),
                **({"rows": e["rows"]} if "rows" in e else {}),
            }
        )
    doc = {"upstream_url": upstream_url, "repos": {"test/repo": {"commit": "c0ffee", "license": "MIT"}}, "files": files}
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    return path

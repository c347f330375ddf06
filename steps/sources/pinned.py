"""The pinned source manifest (`sources.yaml`) and fetching verified copies of its files.

A file comes from a local mirror when the mirror holds it, otherwise from the upstream repository at the
pinned commit (downloaded once into a cache directory). Either way its sha256 must match before use.
Files marked with a `derivation` (e.g. "first 400 lines of upstream") get that derivation applied to the
download, and the checksum is the derived file's.
"""

from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from steps.sources.errors import SourceError
from steps.sources.readers import count_rows

Downloader = Callable[[str], bytes]


@dataclass(frozen=True)
class SourceFile:
    """One pinned upstream file."""

    path: str  # relative path in the mirror, e.g. "mile/evaluate_data.json"
    repo: str
    commit: str
    upstream_path: str
    sha256: str
    bytes: int
    dataset: str
    license: str
    derivation: dict[str, Any] | None = None
    rows: int | None = None  # top-level records (see count_rows); None: not pinned, not checked

    def url(self, template: str) -> str:
        return template.format(repo=self.repo, commit=self.commit, path=self.upstream_path)


@dataclass(frozen=True)
class Manifest:
    upstream_url: str
    files: tuple[SourceFile, ...]
    repos: dict[str, dict[str, str]] = field(default_factory=dict)

    def for_dataset(self, dataset: str) -> list[SourceFile]:
        return [f for f in self.files if f.dataset == dataset]


def load_manifest(path: Path) -> Manifest:
    """Parse `sources.yaml`; a malformed entry is named with the rule it breaks."""
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    repos = doc.get("repos") or {}
    files = []
    for i, entry in enumerate(doc.get("files") or []):
        repo = repos.get(entry.get("repo"))
        if repo is None:
            raise SourceError(
                f"{path}: files[{i}] ({entry.get('path')}): repo '{entry.get('repo')}' is not under 'repos'"
            )
        try:
            files.append(
                SourceFile(
                    path=entry["path"],
                    repo=entry["repo"],
                    commit=repo["commit"],
                    license=repo["license"],
                    upstream_path=entry["upstream_path"],
                    sha256=entry["sha256"],
                    bytes=int(entry["bytes"]),
                    dataset=entry["dataset"],
                    derivation=entry.get("derivation"),
                    rows=_rows(entry.get("rows"), f"{path}: files[{i}] ({entry.get('path')})"),
                )
            )
        except KeyError as e:
            raise SourceError(f"{path}: files[{i}] ({entry.get('path')}): missing key {e}") from None
    return Manifest(upstream_url=doc["upstream_url"], files=tuple(files), repos=repos)


def _rows(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SourceError(f"{where}: rows must be a whole number >= 0, got {value!r}")
    return value


def check_rows(src: SourceFile, local: Path) -> None:
    """The file holds the number of top-level records sources.yaml pins (`rows`); a file cut at a line boundary
    parses cleanly, so only this count notices it."""
    if src.rows is None:
        return
    found = count_rows(local, src.path)
    if found != src.rows:
        raise SourceError(
            f"{local}: expected {src.rows} rows (sources.yaml {src.path}), found {found}: the file is cut short or "
            f"is not the pinned one; restore it from {src.repo}@{src.commit[:10]} ({src.upstream_path})"
        )


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def derive(data: bytes, derivation: dict[str, Any] | None) -> bytes:
    """Apply a recorded derivation to upstream bytes (identity when there is none)."""
    if not derivation:
        return data
    kind = derivation["kind"]
    if kind == "head_lines":
        lines = io.BytesIO(data).readlines()
        return b"".join(lines[: int(derivation["lines"])])
    if kind == "csv_rows_where":
        lines = io.BytesIO(data).readlines()
        header = lines[0].decode("utf-8").rstrip("\r\n").split(",")
        col = header.index(derivation["column"])
        keep = set(derivation["values"])
        return lines[0] + b"".join(ln for ln in lines[1:] if ln.decode("utf-8").split(",")[col] in keep)
    raise SourceError(f"unknown derivation kind '{kind}'")


def _fail_checksum(src: SourceFile, where: Path, actual: str, fix: str) -> SourceError:
    return SourceError(f"{src.path}: sha256 mismatch at {where}: expected {src.sha256}, got {actual}; {fix}")


def fetch(
    src: SourceFile,
    *,
    mirror: Path | None,
    download_dir: Path,
    upstream_url: str,
    download: Downloader | None,
) -> Path:
    """Return a local path to a verified copy of `src`.

    Order: the mirror (if it holds the file), then an earlier verified download, then the upstream
    repository. A mirror copy with a wrong checksum is an error, not a reason to fall back silently.
    """
    if mirror is not None:
        local = mirror / src.path
        if local.is_file():
            actual = sha256_of(local)
            if actual != src.sha256:
                raise _fail_checksum(
                    src,
                    local,
                    actual,
                    "the mirror copy differs from the pinned upstream file; restore it from "
                    f"{src.repo}@{src.commit[:10]} ({src.upstream_path}) or unset JURISFLOW_MIRROR to download it",
                )
            return local
    cached = download_dir / src.path
    if cached.is_file() and sha256_of(cached) == src.sha256:
        return cached
    url = src.url(upstream_url)
    where = f"not in the mirror ({mirror})" if mirror is not None else "no mirror configured"
    if download is None:
        raise SourceError(
            f"{src.path}: {where} and downloads are disabled; set JURISFLOW_MIRROR to a mirror that holds it or allow "
            f"downloads from {url}"
        )
    try:
        data = derive(download(url), src.derivation)
    except SourceError:
        raise
    except Exception as e:  # network errors of any kind end the stage with one line
        raise SourceError(
            f"{src.path}: {where} and the upstream download failed ({type(e).__name__}: {e}) from {url}; "
            "check the network or set JURISFLOW_MIRROR to a directory that holds the file"
        ) from None
    actual = hashlib.sha256(data).hexdigest()
    if actual != src.sha256:
        raise _fail_checksum(
            src,
            Path(url),
            actual,
            "the upstream file at the pinned commit does not match sources.yaml; do not edit the checksum, report it",
        )
    cached.parent.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_name(cached.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, cached)
    return cached


def http_download(timeout: float = 60.0) -> Downloader:
    """A downloader over HTTPS (httpx), following redirects and failing on any non-2xx status."""
    import httpx

    def _get(url: str) -> bytes:
        response = httpx.get(url, timeout=timeout, follow_redirects=True)
        response.raise_for_status()
        return response.content

    return _get

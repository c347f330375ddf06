"""Pinned upstream sources: fetching with checksum verification, and strict readers for the loaders.

Each benchmark's loaders and source schemas are its own (`steps/<benchmark>/sources.py`, found by `tables`)."""

from steps.sources.errors import SourceError, SourceFormatError
from steps.sources.pinned import Manifest, SourceFile, fetch, http_download, load_manifest
from steps.sources.types import Fetched

__all__ = [
    "Fetched",
    "Manifest",
    "SourceError",
    "SourceFile",
    "SourceFormatError",
    "fetch",
    "http_download",
    "load_manifest",
]

"""Pinned upstream sources: fetching with checksum verification, and one loader per dataset."""

from steps.sources.errors import SourceError, SourceFormatError
from steps.sources.loaders import LOADERS, Fetched
from steps.sources.pinned import Manifest, SourceFile, fetch, http_download, load_manifest

__all__ = [
    "LOADERS",
    "Fetched",
    "Manifest",
    "SourceError",
    "SourceFile",
    "SourceFormatError",
    "fetch",
    "http_download",
    "load_manifest",
]

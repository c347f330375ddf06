"""Errors raised while fetching or reading upstream files; each renders as one actionable line."""

from __future__ import annotations


class SourceError(Exception):
    """A source file cannot be used: missing, wrong checksum, unreachable, unreadable or invalid.

    The message is one line that names the file, what is wrong and how to fix it.
    """


class SourceFormatError(SourceError):
    """A source file was fetched and verified but its content breaks a format rule."""

    def __init__(self, file: str, where: str, rule: str):
        self.file, self.where, self.rule = file, where, rule
        super().__init__(f"{file}: {where}: {rule}")

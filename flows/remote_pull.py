"""`jurisflow pull`: `dvc pull` that checks every object it takes from the DVC remote, and names the bad ones.

DVC stores an object under the md5 of its bytes, but by default it does not check what it downloads: an object
altered in the remote (a bad disk, a hand edit, a broken sync) is checked out as is, `dvc pull` exits 0 and `dvc
status` is clean. With the remote option `verify = true` (set on the tracked remote `local` in `.dvc/config`) DVC
hashes each download and drops one that does not match, so nothing wrong is checked out; but its error only says
"Checkout failed ... Is your cache up to date?". This command pulls with `verify` on whatever the remote's setting
(a remote added in `.dvc/config.local` may lack it), then looks up every object the targets need that is still not
in the local cache, in the remote: one line per object, naming the output, the object's path in the remote and
what is wrong with it (its bytes hash to something else, or it is not there).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHUNK = 1 << 20


@dataclass(frozen=True)
class BadObject:
    """An object the pull needed and did not bring: the output it belongs to, where it is in the remote, why."""

    output: str
    location: str
    problem: str

    def __str__(self) -> str:
        return f"{self.output}: the DVC remote's object {self.location} {self.problem}; not checked out"


@dataclass(frozen=True)
class Pulled:
    """What a pull did: DVC's error if it raised one, the objects needed, those that did not arrive."""

    error: str | None
    needed: int
    bad: list[BadObject]


def pull(root: Path, targets: list[str], remote: str | None = None) -> Pulled:
    """Pull `targets` (all when empty) into the DVC project at `root` from `remote` (else the default remote),
    hashing every download."""
    from dvc.exceptions import DvcException
    from dvc.repo import Repo

    with Repo(str(root)) as probe:  # the remote that will be used: `verify` can only be set on a named one
        name = remote or probe.config["core"].get("remote")
    overrides: dict[str, Any] = {"remote": name, "remote_config": {"verify": True}} if name else {}
    with Repo(str(root), **overrides) as repo:
        error = None
        try:
            repo.pull(targets=targets or None, remote=name)
        except DvcException as err:
            error = " ".join(str(err).split())
        used = repo.used_objs(targets=targets or None, remote=name)
        return Pulled(error, sum(map(len, used.values())), _not_pulled(repo, used, name))


def _not_pulled(repo: Any, used: dict[Any, set], remote: str | None) -> list[BadObject]:
    """The objects of `used` (remote database → hashes) that the local cache lacks, each looked up in its remote."""
    bad = []
    for odb, hashes in used.items():
        for info in sorted(hashes, key=lambda h: (str(h.obj_name), h.value)):
            cache = repo.cache.legacy if info.name == "md5-dos2unix" else repo.cache.local
            if cache.exists(info.value):
                continue
            source = odb or repo.cloud.get_remote_odb(remote, "pull", hash_name=info.name)
            bad.append(BadObject(str(info.obj_name or info.value), *_inspect(source, info.value)))
    return bad


def _inspect(odb: Any, oid: str) -> tuple[str, str]:
    """(the object's address in the remote, what is wrong with it): corrupt when its bytes do not hash to its name
    (an md5, `.dir` for a directory's listing), else missing."""
    path = odb.oid_to_path(oid)
    location = odb.fs.unstrip_protocol(path)
    if not odb.fs.exists(path):
        return location, "is missing"
    digest = hashlib.md5(usedforsecurity=False)
    with odb.fs.open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            digest.update(chunk)
    expected = oid.split(".", 1)[0]
    if digest.hexdigest() != expected:
        return location, f"is corrupt: its bytes hash to md5 {digest.hexdigest()}, not {expected}"
    return location, "was not fetched (it is intact in the remote: run the pull again)"


def main(root: Path, targets: list[str], remote: str | None = None) -> int:
    """The command: 0 when everything arrived, else 1 with one line per object (or DVC's own error)."""
    import sys

    done = pull(root, targets, remote)
    for obj in done.bad:
        print(f"pull failed: {obj}", file=sys.stderr)
    if done.error and not done.bad:
        print(f"pull failed: {done.error}", file=sys.stderr)
    if done.error or done.bad:
        return 1
    print(f"pulled: {done.needed} objects in the cache, every download's md5 checked")
    return 0

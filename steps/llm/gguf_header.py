"""The few numbers of a GGUF model's header that size llama.cpp's KV cache (read, not guessed, for `serve local`).

GGUF (little-endian): magic `GGUF`, version, tensor count, metadata count, then typed key/value pairs. Only the
pairs up to the last wanted key are read; arrays and strings on the way are skipped, not kept.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import BinaryIO

# value type -> struct format of a scalar (8: string, 9: array are read apart)
_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9


class GGUFError(ValueError):
    """The stream is not a GGUF file this reader understands, or it lacks a needed key."""


class _Cursor:
    """Reads the header through a growing in-memory buffer (a vocabulary is ~10^5 strings: no call per read)."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream, self.data, self.pos = stream, bytearray(), 0

    def _need(self, n: int) -> None:
        while len(self.data) < self.pos + n:
            chunk = self.stream.read(max(1 << 20, n))
            if not chunk:
                raise GGUFError("the GGUF header ends early")
            self.data += chunk

    def unpack(self, fmt: str) -> tuple:
        size = struct.calcsize("<" + fmt)
        self._need(size)
        values = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += size
        return values

    def skip(self, n: int) -> None:
        self._need(n)
        self.pos += n

    def string(self, keep: bool) -> str | None:
        (length,) = self.unpack("Q")
        self._need(length)
        text = bytes(self.data[self.pos : self.pos + length]).decode("utf-8", errors="replace") if keep else None
        self.pos += length
        return text

    def value(self, kind: int, keep: bool) -> object:
        if kind in _SCALARS:
            return self.unpack(_SCALARS[kind])[0]
        if kind == _STRING:
            return self.string(keep)
        if kind == _ARRAY:
            (item_kind, count) = self.unpack("IQ")
            if item_kind in _SCALARS and not keep:
                self.skip(count * struct.calcsize("<" + _SCALARS[item_kind]))
                return None
            items = [self.value(item_kind, keep) for _ in range(count)]
            return items if keep else None
        raise GGUFError(f"unknown GGUF value type {kind}")


def read_metadata(stream: BinaryIO, wanted: set[str]) -> dict[str, object]:
    """The values of the `wanted` keys that the header holds (stops reading once all are found)."""
    if stream.read(4) != b"GGUF":
        raise GGUFError("not a GGUF file (no GGUF magic)")
    cursor = _Cursor(stream)
    (version, _tensors, count) = cursor.unpack("IQQ")
    if version not in (2, 3):
        raise GGUFError(f"GGUF version {version} is not supported (2 or 3)")
    found: dict[str, object] = {}
    for _ in range(count):
        key = cursor.string(keep=True)
        (kind,) = cursor.unpack("I")
        value = cursor.value(kind, keep=key in wanted)
        if key in wanted:
            found[str(key)] = value
            if len(found) == len(wanted):
                break
    return found


@dataclass(frozen=True)
class KVShape:
    """What one token costs in llama.cpp's KV cache: the KV heads of all layers × (key + value width) elements."""

    architecture: str
    n_layer: int
    kv_heads: int  # KV heads summed over the layers
    key_length: int
    value_length: int

    def bytes_per_token(self, bytes_per_element: float = 2.0) -> int:
        """f16 K and V (llama.cpp's default cache type) unless told otherwise."""
        return int(self.kv_heads * (self.key_length + self.value_length) * bytes_per_element)


def _count(value: object, n_layer: int) -> int:
    """A head count summed over the layers: one count for all, or one per layer."""
    if isinstance(value, list):
        return sum(int(v) for v in value)
    if isinstance(value, int | float):
        return int(value) * n_layer
    raise GGUFError(f"a head count is {type(value).__name__}, not a number")


def kv_shape(stream: BinaryIO) -> KVShape:
    """The KV-cache shape of the GGUF model in `stream` (a binary file opened at its start)."""
    arch = read_metadata(stream, {"general.architecture"}).get("general.architecture")
    if not isinstance(arch, str):
        raise GGUFError("the GGUF header names no general.architecture")
    stream.seek(0)
    needed = [f"{arch}.{n}" for n in ("block_count", "embedding_length", "attention.head_count")]
    optional = [f"{arch}.attention.{n}" for n in ("head_count_kv", "key_length", "value_length")]
    meta = read_metadata(stream, set(needed + optional))
    missing = [k for k in needed if not isinstance(meta.get(k), int | list)]
    if missing:
        raise GGUFError(f"the GGUF header lacks {', '.join(missing)}")
    n_layer = int(meta[needed[0]])  # type: ignore[call-overload]
    heads = _count(meta[needed[2]], n_layer)
    head_dim = int(meta[needed[1]]) * n_layer // max(heads, 1)  # type: ignore[call-overload]
    key_length, value_length = (meta.get(k, head_dim) for k in optional[1:])
    return KVShape(
        architecture=arch,
        n_layer=n_layer,
        kv_heads=_count(meta.get(optional[0], meta[needed[2]]), n_layer),
        key_length=int(key_length),  # type: ignore[call-overload]
        value_length=int(value_length),  # type: ignore[call-overload]
    )

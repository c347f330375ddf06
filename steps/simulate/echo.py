"""Answers that only copy their prompt back: small real models recite the request instead of answering it.

A supervisor or judge answer whose every line is copied from the prompt it was given (markdown marks and
spacing aside) is an echo: it holds no verdict of its own, even when the copied text contains the phrase a
verdict is read from (the prompt's own format instructions name it).
"""

from __future__ import annotations

import re

ECHO_MIN_CHARS = 12  # fewer copied characters than this are too short to call an echo ("好的", "回复无误")
_DECORATION = re.compile(r"[\s*#>`_|-]+")


def normalised(text: str) -> str:
    """The text without markdown marks and whitespace, so that `**原告**：` and `## 原告` compare as written."""
    return _DECORATION.sub("", str(text or ""))


def copies_prompt(answer: str, prompt: str, min_chars: int = ECHO_MIN_CHARS) -> bool:
    """True when every non-empty line of `answer` occurs in `prompt` and they hold `min_chars` or more in all."""
    lines = [line for line in map(normalised, str(answer or "").splitlines()) if line]
    body = normalised(prompt)
    return sum(map(len, lines)) >= min_chars and all(line in body for line in lines)

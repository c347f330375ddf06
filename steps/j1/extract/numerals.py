"""Chinese numerals, terms and money amounts as written in judgments.

Numbers in judgments mix Chinese numerals (第二百六十四条, 一年六个月), financial numerals (贰仟), full-width
digits (１５００元) and Arabic digits with 万 (1.5万元). `cn2an` (pinned by the project) reads a single number;
the helpers here add the forms it rejects: thousands separators, the 〇 and 零 spellings, and compounds with a
zero before a lower unit (五十万零一千) that cn2an's strict mode refuses.
"""

from __future__ import annotations

import re

import cn2an

CN_DIGITS = "零〇一二两三四五六七八九十百千万亿壹贰叁肆伍陆柒捌玖拾佰仟萬廿"
NUMBER = rf"[\d０-９.,．{CN_DIGITS}]+"

_FULL_WIDTH = str.maketrans("０１２３４５６７８９．，", "0123456789.,")


def _clean(text: str) -> str:
    text = text.translate(_FULL_WIDTH).strip()
    # a comma between digit groups is a thousands separator (2,000 / 12,500.50)
    return re.sub(r"(?<=\d),(?=\d{3})", "", text)


def to_number(text: str) -> float | None:
    """The value of a numeral (Chinese, financial, Arabic or mixed such as 1.5万), or None if not a number."""
    text = _clean(text)
    if not text:
        return None
    try:
        return float(cn2an.cn2an(text, "smart"))
    except (ValueError, KeyError, TypeError):
        pass
    # cn2an refuses some well-formed compounds (五十万零一千); read them unit by unit
    for unit, factor in (("亿", 10**8), ("万", 10**4), ("萬", 10**4)):
        if unit in text:
            high, _, low = text.partition(unit)
            hi = to_number(high) if high else 1.0
            lo = to_number(low.lstrip("零〇")) if low.lstrip("零〇") else 0.0
            if hi is None or lo is None:
                return None
            return hi * factor + lo
    return None


def to_int(text: str) -> int | None:
    """An integer numeral such as 二百六十四, 264 or 第（三） stripped of brackets; None if not an integer."""
    value = to_number(text.strip("（）()〔〕[] "))
    if value is None or value != int(value):
        return None
    return int(value)


_YEARS = rf"(?P<y>{NUMBER})年"
_MONTHS = rf"(?P<m>{NUMBER})个?月"
_TERM = re.compile(rf"^(?:{_YEARS})?(?:[零又]?{_MONTHS})?$")


def to_months(text: str) -> int | None:
    """A term such as 一年六个月, 一年零六个月, 1年6个月, 三个月 or 二年 in months; None if unreadable.

    A term cut after 个 (六个) is read as months: the 月 is the only unit that follows 个.
    """
    text = _clean(text).rstrip("，。；、")
    if text.endswith("个"):
        text += "月"
    match = _TERM.match(text)
    if not match or not text:
        return None
    years = to_number(match["y"]) if match["y"] else 0
    months = to_number(match["m"]) if match["m"] else 0
    if years is None or months is None:
        return None
    total = years * 12 + months
    return int(total) if total == int(total) else None


_AMOUNT = re.compile(rf"(?P<n>{NUMBER})元")


def to_yuan(text: str) -> float | None:
    """An amount of money such as 人民币二万元, 1.5万元, 5,000元 or 伍仟元, in yuan; None if unreadable."""
    match = _AMOUNT.search(_clean(text))
    if not match:
        return None
    value = to_number(match["n"])
    return None if value is None else round(value, 2)

"""Dates as written in judgments, normalised to ISO 8601 (partial dates keep only what is stated).

Dates come as 1975年4月16日, 二〇〇二年十月十七日, 1975年4月 (→ 1975-04) or 1975年 (→ 1975), and in a run of
custody events as 同年9月13日, 同月20日, 同日 and 次日, which take the missing parts from the date before.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from steps.j1.extract.numerals import to_int

_D = r"[\d〇零一二三四五六七八九十○Ｏ０-９]"
DATE = re.compile(
    rf"(?:(?P<year>{_D}{{4}})年|(?P<same_year>同年|当年))?(?:(?P<month>{_D}{{1,2}}|十[一二]?)月|(?P<same_month>同月|当月))?"
    rf"(?:(?P<day>{_D}{{1,3}}|[二三]?十[一二三四五六七八九]?)日)?|(?P<same_day>同日|当日|当天)|(?P<next_day>次日|翌日)"
)


def _num(text: str | None) -> int | None:
    if not text:
        return None
    # a year written digit by digit (二〇一七) is not a compound numeral
    digits = text.translate(str.maketrans("〇零○Ｏ一二三四五六七八九", "0000123456789"))
    if len(text) == 4 and digits.isdigit():
        return int(digits)
    return to_int(text)


def iso(year: int | None, month: int | None = None, day: int | None = None) -> str | None:
    """YYYY-MM-DD, YYYY-MM or YYYY; None when the year is unknown or the parts are not a calendar date."""
    if year is None or not 1800 <= year <= 2100:
        return None
    if month is None:
        return f"{year:04d}"
    if not 1 <= month <= 12:
        return None
    if day is None:
        return f"{year:04d}-{month:02d}"
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def parse_date(text: str) -> str | None:
    """The first full or partial date in `text` (1975年4月16日 → 1975-04-16, 1975年4月 → 1975-04)."""
    for m in DATE.finditer(text):
        if m["year"]:
            return iso(_num(m["year"]), _num(m["month"]), _num(m["day"]))
    return None


def dates_in(text: str, previous: str | None = None) -> list[tuple[int, str]]:
    """Every date in `text` with its offset; relative dates (同年…, 次日) resolve against the date before."""
    out: list[tuple[int, str]] = []
    last = previous
    for m in DATE.finditer(text):
        if not m.group(0):
            continue
        resolved = _resolve(m, last)
        if resolved:
            out.append((m.start(), resolved))
            last = resolved
    return out


def _resolve(m: re.Match[str], last: str | None) -> str | None:
    parts = [int(x) for x in last.split("-")] if last else []
    if m["next_day"] or m["same_day"]:
        if len(parts) != 3:
            return None
        day = date(*parts) + timedelta(days=1 if m["next_day"] else 0)
        return day.isoformat()
    if not (m["year"] or m["month"] or m["same_month"]):
        return None  # a bare 五日 is a duration (行政拘留五日), not a date
    year = _num(m["year"]) if m["year"] else (parts[0] if m["same_year"] and parts else None)
    month = _num(m["month"]) if m["month"] else (parts[1] if m["same_month"] and len(parts) > 1 else None)
    if m["year"] is None and m["same_year"] is None and parts:
        year = parts[0]  # 同月20日 / 20日 alone keep the year of the date before
        if month is None and len(parts) > 1:
            month = parts[1]
    return iso(year, month, _num(m["day"]))

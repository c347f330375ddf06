"""Grouped bar charts as inline SVG, drawn from the data (no JavaScript, no library); deterministic output.

A chart is responsive: its size is its viewBox, drawn at the page's width up to its natural width (`max-width`),
never wider; the bars narrow so that a chart with many categories stays within MAX_WIDTH."""

from __future__ import annotations

import math
from collections.abc import Mapping
from html import escape

# colour-blind-safe palette (Okabe–Ito); the paper's series are drawn in the same hue, hatched
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
MAX_WIDTH = 960  # the natural width a chart's bars are narrowed to fit, when it has many categories and series


def _num(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def nice_max(value: float) -> float:
    """The axis top for a maximum value: 1, 10 or 100 when the value fits one of these scales, else 10^k steps."""
    for top in (1.0, 10.0, 100.0):
        if value <= top:
            return top
    step = 10 ** math.floor(math.log10(value))
    return math.ceil(value / step) * step


def bar_chart(
    title: str,
    categories: list[str],
    series: list[tuple[str, list[float | None]]],
    *,
    y_max: float | None = None,
    paper: frozenset[str] = frozenset(),
    height: int = 220,
    errors: Mapping[str, list[tuple[float, float] | None]] | None = None,
) -> str:
    """A grouped vertical bar chart: one group per category, one bar per series (None = no bar).

    Series named in `paper` are hatched (the paper's numbers); each bar has a tooltip with its exact value.
    `errors`: per series name, each category's 95 % interval (low, high) or None, drawn as an error bar (a
    vertical line with caps) over the bar and given in its tooltip.
    """
    values = [v for _, vs in series for v in vs if v is not None and not math.isnan(v)]
    values += [x for ivs in (errors or {}).values() for iv in ivs if iv is not None for x in iv if not math.isnan(x)]
    top = max(y_max if y_max is not None else nice_max(max(values, default=1.0)), max(values, default=0.0))
    n_series = max(len(series), 1)
    left, top_pad = 40, 26
    room = (MAX_WIDTH - left - 10) // max(len(categories), 1) - 10  # per category, within MAX_WIDTH
    bar_w = max(2, min(18, 120 // n_series, room // n_series))
    group_w = bar_w * n_series + 10
    bottom = min(30 + 5 * max((len(c) for c in categories), default=0), 130)  # room for the slanted labels
    per_row = min(len(series), 4) or 1
    width = max(left + group_w * max(len(categories), 1) + 10, left + 150 * per_row, 30 + 8 * len(title))
    legend_h = 16 * math.ceil(len(series) / per_row)
    total_h = top_pad + height + bottom + legend_h
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" viewBox="0 0 {width} {total_h}" '
        f'style="flex-basis:{width}px;max-width:{width}px" aria-label="{escape(title)}">',
        '<defs><pattern id="hatch" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
        '<line x1="0" y1="0" x2="0" y2="4" stroke="#fff" stroke-width="2"/></pattern></defs>',
        f'<text x="{left}" y="16" class="chart-title">{escape(title)}</text>',
    ]
    for i in range(5):
        v = top * i / 4
        y = top_pad + height - height * i / 4
        out.append(f'<line x1="{left}" x2="{width - 10}" y1="{_num(y)}" y2="{_num(y)}" class="grid"/>')
        out.append(f'<text x="{left - 4}" y="{_num(y + 4)}" class="tick" text-anchor="end">{round(v, 4):g}</text>')
    for c, category in enumerate(categories):
        x0 = left + c * group_w + 5
        for s, (name, vs) in enumerate(series):
            value = vs[c]
            if value is None or math.isnan(value):
                continue
            h = height * max(value, 0.0) / top if top else 0.0
            x, y = x0 + s * bar_w, top_pad + height - h
            colour = PALETTE[s % len(PALETTE)]
            interval = (errors or {}).get(name, [None] * len(categories))[c]
            ci = f" (95 % CI {_num(interval[0])}–{_num(interval[1])})" if interval is not None else ""
            tip = escape(f"{name} · {category}: {_num(value)}{ci}")
            out.append(
                f'<rect x="{x}" y="{_num(y)}" width="{bar_w - 1}" height="{_num(h)}" fill="{colour}">'
                f"<title>{tip}</title></rect>"
            )
            if name in paper:
                out.append(f'<rect x="{x}" y="{_num(y)}" width="{bar_w - 1}" height="{_num(h)}" fill="url(#hatch)"/>')
            if interval is not None:
                out.append(_error_bar(x + (bar_w - 1) / 2, interval, top, top_pad, height, bar_w, tip))
        cx = x0 + bar_w * n_series / 2
        out.append(
            f'<text x="{_num(cx)}" y="{top_pad + height + 12}" class="tick" text-anchor="end" '
            f'transform="rotate(-40 {_num(cx)} {top_pad + height + 12})">{escape(category)}</text>'
        )
    ly = top_pad + height + bottom
    for s, (name, _) in enumerate(series):
        lx, row = left + (s % per_row) * 150, ly + 16 * (s // per_row)
        fill = PALETTE[s % len(PALETTE)]
        out.append(f'<rect x="{lx}" y="{row - 9}" width="10" height="10" fill="{fill}"/>')
        if name in paper:
            out.append(f'<rect x="{lx}" y="{row - 9}" width="10" height="10" fill="url(#hatch)"/>')
        out.append(f'<text x="{lx + 14}" y="{row}" class="legend">{escape(name)}</text>')
    out.append("</svg>")
    return "".join(out)


def _error_bar(
    cx: float, interval: tuple[float, float], top: float, top_pad: int, height: int, bar_w: int, tip: str
) -> str:
    """A 95 % interval over a bar: a vertical line from low to high (clipped to the axis) with caps at both ends."""

    def y_of(v: float) -> float:
        return top_pad + height - height * min(max(v, 0.0), top) / top if top else float(top_pad + height)

    y_low, y_high = y_of(interval[0]), y_of(interval[1])
    cap = max(1.0, (bar_w - 1) / 3)
    return (
        f'<g class="error-bar"><title>{tip}</title>'
        f'<line x1="{_num(cx)}" x2="{_num(cx)}" y1="{_num(y_low)}" y2="{_num(y_high)}"/>'
        f'<line x1="{_num(cx - cap)}" x2="{_num(cx + cap)}" y1="{_num(y_low)}" y2="{_num(y_low)}"/>'
        f'<line x1="{_num(cx - cap)}" x2="{_num(cx + cap)}" y1="{_num(y_high)}" y2="{_num(y_high)}"/></g>'
    )

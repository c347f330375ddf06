"""Grouped bar charts as inline SVG, drawn from the data (no JavaScript, no library); deterministic output.

A chart is responsive: its size is its viewBox, drawn at the page's width up to its natural width (`max-width`),
never wider; the bars narrow so that a chart with many categories stays within MAX_WIDTH."""

from __future__ import annotations

import math
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
) -> str:
    """A grouped vertical bar chart: one group per category, one bar per series (None = no bar).

    Series named in `paper` are hatched (the paper's numbers); each bar has a tooltip with its exact value.
    """
    values = [v for _, vs in series for v in vs if v is not None and not math.isnan(v)]
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
            tip = escape(f"{name} · {category}: {_num(value)}")
            out.append(
                f'<rect x="{x}" y="{_num(y)}" width="{bar_w - 1}" height="{_num(h)}" fill="{colour}">'
                f"<title>{tip}</title></rect>"
            )
            if name in paper:
                out.append(f'<rect x="{x}" y="{_num(y)}" width="{bar_w - 1}" height="{_num(h)}" fill="url(#hatch)"/>')
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

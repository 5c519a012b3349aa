"""The price-history image as SVG, written out directly rather than drawn by matplotlib.

matplotlib's SVG backend took ~200 ms per chart of the most listed card (text laid out
and written as glyph paths, a constrained layout, 18 legend entries), and a new price of
that card changes its chart: every first view after a price paid it (bench/gpu_page.py).
This draws the same chart (the title, a line per series with the period's min-max band,
a diamond for a single price, the legend below with each series' label, kind and count,
the text alternative) in a few ms. PNG stays with matplotlib (render.line_chart).

The look is the page's (web/svg.py, style.css): the series palette and dash patterns of
render.series_style, the DejaVu Sans advance widths to fit labels, text kept as text. It
is a fixed-size image for documents and chat tools, laid out once at 1000 units wide.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from xml.sax.saxutils import escape

from services.api.charts.data import Series
from services.api.charts.render import (
    GRID,
    INK,
    MUTED,
    SERIES_COLOURS,
    SERIES_DASHES,
    series_style,
)
from services.api.web.svg import MARGIN, WIDE, fit, nice_ticks, text_width

WIDTH = WIDE.width
FONT, SMALL, TITLE = WIDE.font, WIDE.small, 17
LINE_WIDTH = 2.0
PLOT_TOP, PLOT_HEIGHT = 40, 320
PAD = 10  # between the plot's edges and the first and last period
LEGEND_ROW, SWATCH = 20, 28
MOST_X_TICKS = 12
FONTS = "DejaVu Sans, Bitstream Vera Sans, Verdana, sans-serif"
_MONTH_STEPS = (1, 2, 3, 6)
_DAY_STEPS = (1, 2, 7, 14)


def _money(value: float) -> str:
    return f"${value:,.0f}"


def _months(first: datetime, last: datetime, step: int) -> list[datetime]:
    """First days of months from `first` to `last`, of every `step`-th month of the year."""
    year, month = first.year, first.month
    found = []
    while (at := datetime(year, month, 1, tzinfo=UTC)) <= last:
        if at >= first and (month - 1) % step == 0:
            found.append(at)
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return found


def x_ticks(first: datetime, last: datetime) -> list[tuple[datetime, str]]:
    """Dates to mark between `first` and `last`: New Year's days over a long span, first
    days of months over a shorter one, days over a few weeks; at most MOST_X_TICKS, labelled
    as matplotlib labels them ('2024', '2024-03', '2024-03-15')."""
    years = [datetime(y, 1, 1, tzinfo=UTC) for y in range(first.year + 1, last.year + 1)]
    if len(years) >= 3:
        step = math.ceil(len(years) / MOST_X_TICKS)
        return [(at, str(at.year)) for at in years[::step]]
    for step in _MONTH_STEPS:
        months = _months(first, last, step)
        if 2 <= len(months) <= MOST_X_TICKS:
            return [(at, at.strftime("%Y-%m")) for at in months]
    start = datetime(first.year, first.month, first.day, tzinfo=UTC)
    if start < first:
        start += timedelta(days=1)
    span = (last - start).days + 1
    step = next((s for s in _DAY_STEPS if span / s <= MOST_X_TICKS), _DAY_STEPS[-1])
    days = [start + timedelta(days=d) for d in range(0, span, step)]
    # A single period within one day: its own date.
    return [(at, at.strftime("%Y-%m-%d")) for at in days if at <= last] or [
        (first, first.strftime("%Y-%m-%d"))
    ]


def _dash(index: int) -> str:
    # In line widths, as matplotlib and style.css scale them.
    pattern = SERIES_DASHES[index]
    return " ".join(f"{v * LINE_WIDTH:g}" for v in pattern)


def _diamond(x: float, y: float, size: float = 6) -> str:
    return f"M{x:g},{y - size:g} l{size:g},{size:g} l{-size:g},{size:g} l{-size:g},{-size:g} Z"


def _text(x: float, y: float, text: str, size: int, fill: str, extra: str = "") -> str:
    return (
        f'<text x="{x:g}" y="{y:g}" font-size="{size}" fill="{fill}"{extra}>{escape(text)}</text>'
    )


def line_chart(series: Sequence[Series], title: str, desc: str) -> bytes:
    """Median price per period and source, shaded between the period's min and max; the
    legend below the plot, two columns from three series on (as the matplotlib chart)."""
    columns = 1 if len(series) <= 2 else 2
    rows = math.ceil(len(series) / columns)
    bottom = PLOT_TOP + PLOT_HEIGHT
    legend_top = bottom + SMALL + 26
    height = legend_top + max(rows, 1) * LEGEND_ROW + 4
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="{FONTS}" role="img" '
        'aria-labelledby="chart-title chart-desc">',
        f'<title id="chart-title">{escape(title)}</title>',
        f'<desc id="chart-desc">{escape(desc)}</desc>',
        f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>',
        _text(
            MARGIN + 4,
            24,
            fit(title, TITLE, WIDTH - 2 * MARGIN - 8, bold=True),
            TITLE,
            INK,
            ' font-weight="bold"',
        ),
    ]
    if not series:
        middle = PLOT_TOP + PLOT_HEIGHT / 2
        out.append(
            _text(WIDTH / 2, middle, "No price observations", FONT, MUTED, ' text-anchor="middle"')
        )
        out.append("</svg>")
        return "\n".join(out).encode()
    starts = [b.start for s in series for b in s.buckets]
    first, last = min(starts), max(starts)
    y_values = nice_ticks(max(b.high for s in series for b in s.buckets) * 1.05, 6)
    y_labels = [_money(v) for v in y_values]
    ticks = x_ticks(first, last)
    left = round(max(text_width(label, SMALL) for label in y_labels) + 8 + MARGIN, 1)
    widest = max((text_width(label, SMALL) for _, label in ticks), default=0)
    right = round(WIDTH - max(12, widest / 2 + MARGIN), 1)
    span = (last - first).total_seconds()
    plot_w = right - left - 2 * PAD

    def x(at: datetime) -> float:
        if not span:  # one period: in the middle, as matplotlib centres a single date
            return round((left + right) / 2, 1)
        return round(left + PAD + (at - first).total_seconds() / span * plot_w, 1)

    def y(usd: float) -> float:
        return round(bottom - usd / y_values[-1] * PLOT_HEIGHT, 1)

    out.append(f'<g stroke="{GRID}" stroke-width="0.8">')
    out += [f'<path d="M{left:g},{y(v):g} H{right:g}"/>' for v in y_values]
    out += [f'<path d="M{x(at):g},{PLOT_TOP} V{bottom}"/>' for at, _ in ticks]
    out.append("</g>")
    out.append(f'<g font-size="{SMALL}" fill="{MUTED}">')
    out += [
        f'<text x="{left - 6:g}" y="{y(v) + 4:g}" text-anchor="end">{label}</text>'
        for v, label in zip(y_values, y_labels, strict=True)
    ]
    tick_y = bottom + SMALL + 6
    out += [
        f'<text x="{x(at):g}" y="{tick_y}" text-anchor="middle">{label}</text>'
        for at, label in ticks
    ]
    out.append("</g>")
    looks = [series_style(i) for i in range(len(series))]
    # Every band under every line: a series' spread never hides another's median.
    out.append('<g fill-opacity="0.15">')
    for index, s in enumerate(series):
        if len(s.buckets) < 2 or not any(b.high > b.low for b in s.buckets):
            continue
        upper = [f"{x(b.start):g},{y(b.high):g}" for b in s.buckets]
        lower = [f"{x(b.start):g},{y(b.low):g}" for b in reversed(s.buckets)]
        colour = SERIES_COLOURS[looks[index][0]]
        out.append(f'<path id="band-{index}" fill="{colour}" d="M{" L".join(upper + lower)} Z"/>')
    out.append("</g>")
    for index, s in enumerate(series):
        colour, dash = SERIES_COLOURS[looks[index][0]], _dash(looks[index][1])
        out.append(f'<g id="series-{index}-{escape(s.condition)}">')
        out.append(f"<title>{escape(s.label)} ({escape(s.kind)}): {s.n} prices</title>")
        if len(s.buckets) == 1:
            b = s.buckets[0]
            style = f"fill:{colour};stroke:#ffffff;stroke-width:1.5"
            out.append(f'<path style="{style}" d="{_diamond(x(b.start), y(b.median))}"/>')
        else:
            style = f"fill:none;stroke:{colour};stroke-width:{LINE_WIDTH:g}"
            style += f";stroke-dasharray:{dash}" if dash else ""
            line = " L".join(f"{x(b.start):g},{y(b.median):g}" for b in s.buckets)
            out.append(f'<path style="{style}" stroke-linejoin="round" d="M{line}"/>')
        out.append("</g>")
    out += _legend(series, looks, columns, rows, legend_top)
    out.append("</svg>")
    return "\n".join(out).encode()


def _legend(
    series: Sequence[Series],
    looks: Sequence[tuple[int, int]],
    columns: int,
    rows: int,
    top: float,
) -> list[str]:
    """Entries column by column (as matplotlib fills them): a swatch drawn as the series
    is, then its label, kind and count, shortened with an ellipsis if the column is full."""
    column_width = (WIDTH - 2 * MARGIN) / columns
    out = [f'<g id="legend" font-size="{FONT}" fill="{INK}">']
    for index, s in enumerate(series):
        column, row = divmod(index, rows)
        x0 = MARGIN + 4 + column * column_width
        baseline = top + row * LEGEND_ROW + FONT
        mid = baseline - FONT / 3
        colour, dash = SERIES_COLOURS[looks[index][0]], _dash(looks[index][1])
        if len(s.buckets) == 1:
            swatch = _diamond(x0 + SWATCH / 2, mid, 5)
            out.append(f'<path fill="{colour}" d="{swatch}"/>')
        else:
            dashes = f' stroke-dasharray="{dash}"' if dash else ""
            out.append(
                f'<path stroke="{colour}" stroke-width="{LINE_WIDTH:g}"{dashes} '
                f'd="M{x0:g},{mid:g} h{SWATCH}"/>'
            )
        label = f"{s.label} ({s.kind}, n={s.n})"
        room = column_width - SWATCH - 8 - 2 * MARGIN
        shown = fit(label, FONT, room)
        tooltip = "" if shown == label else f"<title>{escape(label)}</title>"
        text_x = x0 + SWATCH + 8
        out.append(f'<text x="{text_x:g}" y="{baseline:g}">{escape(shown)}{tooltip}</text>')
    out.append("</g>")
    return out

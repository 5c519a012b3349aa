"""Geometry of the pages' inline SVG charts (the templates only place what is computed here).

Inline SVG drawn on the server shows without JavaScript, is styled by the page's CSS
(dark mode included), keeps text selectable, and costs a few KB instead of an image
request; matplotlib draws the downloadable images (services/api/charts/render.py).

A viewBox scales text with the drawing, so one drawing cannot be readable on a desktop
panel and on a phone: the 1000-unit-wide charts put their 11-unit labels on a 390 px
screen at 4 px. So every chart is laid out twice, WIDE and NARROW (330 units across, one
label per line), and style.css shows the one whose text renders at 11 px or more in the
space there is (a container query: no script, nothing inline). Type sizes are part of the
layout and go out as font-size attributes, so what is measured here is what is drawn.

Labels are measured with DejaVu Sans's advance widths (text_width): Chromium on Debian
draws with it, and it is wider than the system fonts of phones and desktops, so a label
measured to fit does fit. One that would not fit is shortened with an ellipsis (the
<title> tooltips and the tables beside the charts keep the full text), never clipped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from services.api.charts.data import PRICED_METRICS, Bar, Metric, Series
from services.api.charts.render import series_style

# --- type and measurement ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Layout:
    """One of the two drawings: its width in viewBox units and its type sizes there."""

    name: str  # the <svg>'s class, by which style.css picks the drawing shown
    width: int
    font: int  # names, values, end labels
    small: int  # ticks, axis labels, prices, memory


# WIDE is shown from 1000 px of width up, where its 11-unit labels are >= 11 px (style.css);
# NARROW's 12-unit labels are >= 11 px from 303 px of width, a 360 px phone's chart panel.
WIDE = Layout("wide", 1000, 12, 11)
NARROW = Layout("narrow", 330, 13, 12)

# DejaVu Sans advance widths in thousandths of an em, for " " (32) to "~" (126).
_REGULAR = (
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636,
    636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698,
    770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732,
    684, 989, 685, 611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635,
    634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592,
    525, 636, 337, 636, 838,
)  # fmt: skip
_BOLD = (
    348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696,
    696, 696, 696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 580, 1000, 774, 762, 734,
    830, 683, 683, 821, 837, 372, 372, 775, 637, 995, 837, 850, 733, 850, 770, 720, 682, 812,
    774, 1103, 771, 724, 725, 457, 365, 457, 838, 500, 500, 675, 716, 593, 716, 678, 435, 716,
    712, 343, 343, 665, 343, 1042, 712, 687, 716, 716, 493, 595, 478, 712, 652, 924, 645, 652,
    582, 712, 365, 712, 838,
)  # fmt: skip
_OTHER = {"·": 380, "–": 500, "—": 1000, "›": 412, "…": 1000, "×": 838, "’": 380}
_UNKNOWN = 1000  # any other character: as wide as an em, so an estimate never falls short
ELLIPSIS = "…"


def text_width(text: str, size: float, bold: bool = False) -> float:
    """Advance width of `text` at `size` units (DejaVu Sans; bold for weights over 500)."""
    table = _BOLD if bold else _REGULAR
    total = 0
    for char in text:
        code = ord(char)
        total += table[code - 32] if 32 <= code < 127 else _OTHER.get(char, _UNKNOWN)
    return total * size / 1000


def fit(text: str, size: float, room: float, bold: bool = False) -> str:
    """`text`, or as much of it as fits in `room` with an ellipsis."""
    if text_width(text, size, bold) <= room:
        return text
    while text and text_width(text + ELLIPSIS, size, bold) > room:
        text = text[:-1]
    return text.rstrip() + ELLIPSIS


@dataclass(frozen=True, slots=True)
class Label:
    """A placed text: the anchor point's x and the baseline's y."""

    x: float
    y: float
    text: str
    anchor: str = "start"


def _centred(x: float, text: str, size: float, low: float, high: float) -> Label:
    """A label centred on x, moved inwards as far as needed to stay within [low, high]."""
    half = text_width(text, size) / 2
    return Label(round(min(max(x, low + half), high - half), 1), 0, text, "middle")


def nice_ticks(high: float, count: int = 5) -> list[float]:
    """Round tick values from 0 to at least `high` (1, 2, 2.5 or 5 times a power of ten)."""
    if high <= 0:
        return [0.0, 1.0]
    raw = high / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    ticks = [0.0]
    while ticks[-1] < high - 1e-12:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def tick_label(value: float, money: bool = False) -> str:
    if money:
        if value >= 1_000_000:
            return f"${value / 1_000_000:g}M"
        return f"${value / 1000:g}k" if value >= 1000 else f"${value:g}"
    return f"{value:g}"


@dataclass(frozen=True, slots=True)
class Tick:
    """A grid line at x (or y, on a value axis drawn across) and its label."""

    x: float
    label: str
    text_x: float = 0.0  # where the label is centred (kept inside the drawing)


# --- bars (/ and its results fragment) ----------------------------------------------------

MARGIN = 4  # between any text and the drawing's edge
WIDE_ROW, WIDE_BAR = 30, 18
NARROW_ROW, NARROW_BAR = 58, 14
# Of WIDE's 1000 units: past these a name or price label is shortened, not the plot.
MAX_NAME_COLUMN, MAX_PRICE_COLUMN = 300, 320


@dataclass(frozen=True, slots=True)
class BarShape:
    bar: Bar
    y: float  # top of the bar
    height: float
    width: float
    low_x: float
    high_x: float
    clipped: bool
    name: Label  # the GPU (shortened if need be); the memory follows in a smaller tspan
    memory: str
    value: Label
    price: Label  # perf per dollar: what the price is and how old; performance: the basis

    @property
    def mid(self) -> float:
        return self.y + self.height / 2


@dataclass(frozen=True, slots=True)
class BarChart:
    metric: Metric
    layout: Layout
    height: int
    plot_left: float
    plot_width: float
    shapes: tuple[BarShape, ...]
    ticks: tuple[Tick, ...]
    tick_y: float
    reference_x: float | None
    axis_label: Label
    axis_y: float
    narrow: BarChart | None = None  # the phone drawing of the same bars

    @property
    def width(self) -> int:
        return self.layout.width


def _value_text(value: float, clipped: bool) -> str:
    return f"{value:.3g}" + (" ›" if clipped else "")


def bar_chart(items: Sequence[Bar], metric: Metric) -> BarChart:
    """Rows in rank order: the wide drawing, its narrow one attached."""
    wide = _bar_chart(items, metric, WIDE)
    return replace(wide, narrow=_bar_chart(items, metric, NARROW))


def _bar_chart(items: Sequence[Bar], metric: Metric, layout: Layout) -> BarChart:
    """WIDE: name | bar, whisker and value | price, a row per GPU. NARROW: the name, the bar
    and the price each on a line of its own, across the whole width.

    Intervals past 1.8x the best value are clipped at the plot's edge (marked ›): one wild
    interval (a model guess for an unusual card) must not squash every bar."""
    font, small, width = layout.font, layout.small, layout.width
    narrow = layout is NARROW
    prices = [b.label if metric in PRICED_METRICS else b.basis for b in items]
    memories = [f"{b.memory_gb:,.0f} GB" for b in items]
    # Room after the whisker for the value, marked or not (bold, as style.css draws it).
    value_room = 5 + max(
        (text_width(_value_text(b.value, True), small, bold=True) for b in items), default=30
    )
    if narrow:
        plot_left, price_column = float(MARGIN), 0.0
        row, bar_height, top = NARROW_ROW, NARROW_BAR, 4
    else:
        names = [
            text_width(f"{b.short} ", font) + text_width(m, small)
            for b, m in zip(items, memories, strict=True)
        ]
        plot_left = min(max(names, default=100) + 8 + MARGIN, MAX_NAME_COLUMN)
        widest_price = max((text_width(p, small) for p in prices), default=100)
        price_column = min(widest_price + 12 + MARGIN, MAX_PRICE_COLUMN)
        row, bar_height, top = WIDE_ROW, WIDE_BAR, 8
    plot_left = round(plot_left, 1)
    plot_width = round(width - plot_left - price_column - value_room - MARGIN, 1)
    top_value = max((b.value for b in items), default=1.0)
    top_high = max((b.high for b in items), default=1.0)
    ticks = nice_ticks(min(top_high, top_value * 1.8), 4 if narrow else 5)
    scale = plot_width / ticks[-1]
    shapes = []
    for i, (b, price, memory) in enumerate(zip(items, prices, memories, strict=True)):
        row_top = top + i * row
        bar_y: float
        if narrow:
            bar_y = row_top + font + 6
            # The name and its memory share the line; the name gives way.
            room = width - 2 * MARGIN - text_width(" ", font) - text_width(memory, small)
            name = Label(MARGIN, row_top + font, fit(b.short, font, room) + " ")
            price_y = bar_y + bar_height + 4 + small
            price_label = Label(MARGIN, price_y, fit(price, small, width - 2 * MARGIN))
        else:
            bar_y = row_top + (row - bar_height) / 2
            room = plot_left - 8 - MARGIN - text_width(" ", font) - text_width(memory, small)
            name = Label(
                plot_left - 8, bar_y + bar_height / 2 + 4, fit(b.short, font, room) + " ", "end"
            )
            room = price_column - 12 - MARGIN
            price_label = Label(
                width - MARGIN, bar_y + bar_height / 2 + 4, fit(price, small, room), "end"
            )
        mid = bar_y + bar_height / 2
        clipped = b.high * scale > plot_width
        high_x = plot_left + min(b.high * scale, plot_width)
        shapes.append(
            BarShape(
                bar=b,
                y=round(bar_y, 1),
                height=bar_height,
                width=round(max(b.value * scale, 1.0), 1),
                low_x=round(plot_left + b.low * scale, 1),
                high_x=round(high_x, 1),
                clipped=clipped,
                name=name,
                memory=memory,
                value=Label(round(high_x + 5, 1), round(mid + 4, 1), _value_text(b.value, clipped)),
                price=price_label,
            )
        )
    axis_y = top + row * max(len(items), 1)
    tick_y = axis_y + small + 3
    height = round(tick_y + small + 8)
    axis_text = {
        "perf_per_dollar": "performance per $1,000 of the build",
        "performance": "throughput relative to the reference GPU",
        "cost_per_unit": f"{items[0].unit if items else 'usd per unit'} (shorter is cheaper)",
    }[metric]
    axis = _centred(plot_left + plot_width / 2, axis_text, small, MARGIN, width - MARGIN)
    tick_xs = [round(plot_left + t * scale, 1) for t in ticks]
    return BarChart(
        metric=metric,
        layout=layout,
        height=height,
        plot_left=plot_left,
        plot_width=plot_width,
        shapes=tuple(shapes),
        ticks=tuple(
            Tick(x, label, _centred(x, label, small, MARGIN, width - MARGIN).x)
            for x, label in zip(tick_xs, map(tick_label, ticks), strict=True)
        ),
        tick_y=tick_y,
        reference_x=round(plot_left + scale, 1)
        if metric == "performance" and ticks[-1] >= 1
        else None,
        axis_label=replace(axis, y=height - 4),
        axis_y=axis_y,
    )


# --- price history (/gpus/{id}) ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Point:
    x: float
    y: float
    label: str


@dataclass(frozen=True, slots=True)
class SeriesShape:
    series: Series
    index: int
    line: str  # SVG path data of the median
    band: str  # SVG path data of the min-max spread (empty when there is none)
    points: tuple[Point, ...]  # single observations, drawn as markers

    @property
    def style(self) -> str:
        """Classes of its colour and dash pattern (style.css .c0-.c7, .d0-.d3): the legend
        and the chart use the same, as does the PNG (render.series_style)."""
        colour, dash = series_style(self.index)
        return f"c{colour} d{dash}"


@dataclass(frozen=True, slots=True)
class LineChart:
    layout: Layout
    height: int
    left: float
    right: float
    top: float
    bottom: float
    shapes: tuple[SeriesShape, ...]
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]
    narrow: LineChart | None = None  # the phone drawing of the same series

    @property
    def width(self) -> int:
        return self.layout.width


def _year_ticks(start: datetime, end: datetime, most: int) -> list[datetime]:
    years = list(range(start.year + 1, end.year + 1))
    step = max(1, math.ceil(len(years) / most))
    return [datetime(y, 1, 1, tzinfo=UTC) for y in years[::step]]


def _left_margin(labels: Sequence[str], size: float) -> float:
    """Room left of a plot for its value labels, drawn right-aligned 6 units off it."""
    return round(max((text_width(label, size) for label in labels), default=20) + 6 + MARGIN, 1)


def line_chart(series: Sequence[Series]) -> LineChart:
    """Median per period and source, shaded between the period's min and max."""
    return replace(_line_chart(series, WIDE), narrow=_line_chart(series, NARROW))


def _line_chart(series: Sequence[Series], layout: Layout) -> LineChart:
    narrow = layout is NARROW
    small = layout.small
    height = 230 if narrow else 340
    starts = [b.start for s in series for b in s.buckets]
    highs = [b.high for s in series for b in s.buckets]
    first = min(starts, default=datetime(2020, 1, 1, tzinfo=UTC))
    last = max(starts, default=datetime(2021, 1, 1, tzinfo=UTC))
    span = max((last - first).total_seconds(), 86400.0)
    y_values = nice_ticks(max(highs, default=1.0) * 1.05, 4 if narrow else 5)
    y_labels = [tick_label(t, money=True) for t in y_values]
    years = _year_ticks(first, last, 4 if narrow else 8)
    year_labels = [str(t.year) for t in years]
    left = _left_margin(y_labels, small)
    # A year label is centred on its tick; the last may sit on the plot's right edge.
    widest_year = max((text_width(y, small) for y in year_labels), default=0)
    right = round(layout.width - max(12, widest_year / 2 + MARGIN), 1)
    top, bottom = 12, height - 28
    plot_w, plot_h = right - left, bottom - top

    def x(t: datetime) -> float:
        return round(left + (t - first).total_seconds() / span * plot_w, 1)

    def y(v: float) -> float:
        return round(top + plot_h - v / y_values[-1] * plot_h, 1)

    shapes = []
    for index, s in enumerate(series):
        if len(s.buckets) == 1:
            b = s.buckets[0]
            label = f"{s.label}: ${b.median:,.0f} on {b.start.date()}"
            shapes.append(SeriesShape(s, index, "", "", (Point(x(b.start), y(b.median), label),)))
            continue
        line = "M" + " L".join(f"{x(b.start)},{y(b.median)}" for b in s.buckets)
        upper = [f"{x(b.start)},{y(b.high)}" for b in s.buckets]
        lower = [f"{x(b.start)},{y(b.low)}" for b in reversed(s.buckets)]
        spread = any(b.high > b.low for b in s.buckets)
        band = ("M" + " L".join(upper + lower) + " Z") if spread else ""
        shapes.append(SeriesShape(s, index, line, band, ()))
    return LineChart(
        layout=layout,
        height=height,
        left=left,
        right=right,
        top=top,
        bottom=bottom,
        shapes=tuple(shapes),
        y_ticks=tuple(Tick(y(v), label) for v, label in zip(y_values, y_labels, strict=True)),
        x_ticks=tuple(Tick(x(t), label, x(t)) for t, label in zip(years, year_labels, strict=True)),
    )


# --- cumulative cost (/tco) -------------------------------------------------------------

MONTH_DAYS = 30.4375
_MONTH_STEPS = (3, 6, 12, 24, 60, 120)


@dataclass(frozen=True, slots=True)
class Key:
    """A legend entry drawn in the chart: a line swatch from x to x + 16, its text after."""

    x: float
    y: float
    text: str
    kind: str  # "own" or "cloud"


@dataclass(frozen=True, slots=True)
class CostChart:
    layout: Layout
    height: int
    left: float
    right: float
    top: float
    bottom: float
    own: str  # SVG path data
    cloud: str
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]
    break_even_x: float | None
    break_even_y: float | None
    break_even_label: Label | None
    end_own: Label | None  # WIDE: the totals at the lines' ends
    end_cloud: Label | None
    keys: tuple[Key, ...]  # NARROW: the totals in a legend above the plot
    narrow: CostChart | None = None  # the phone drawing

    @property
    def width(self) -> int:
        return self.layout.width


def cost_chart(
    months: Sequence[tuple[int, float, float]], break_even_days: float | None
) -> CostChart:
    """Cumulative own and rent cost per month; the break-even marked where they cross."""
    wide = _cost_chart(months, break_even_days, WIDE)
    return replace(wide, narrow=_cost_chart(months, break_even_days, NARROW))


def _month_step(last_month: int, most: int) -> int:
    """Months between x ticks: whole years past two years, at most `most` steps."""
    least = 12 if last_month > 24 else 6 if last_month > 12 else 3
    steps = [s for s in _MONTH_STEPS if s >= least]
    return next((s for s in steps if last_month / s <= most), steps[-1])


def _month_label(month: int) -> str:
    return f"{month // 12} y" if month % 12 == 0 and month else f"{month} mo"


def _apart(a: float, b: float, gap: float, low: float, high: float) -> tuple[float, float]:
    """Baselines a and b at least `gap` apart (about their middle, within [low, high]), the
    upper one staying above."""
    if abs(a - b) >= gap:
        return a, b
    middle = min(max((a + b) / 2, low + gap / 2), high - gap / 2)
    upper, lower = middle - gap / 2, middle + gap / 2
    return (upper, lower) if a <= b else (lower, upper)


def _cost_chart(
    months: Sequence[tuple[int, float, float]], break_even_days: float | None, layout: Layout
) -> CostChart:
    narrow = layout is NARROW
    font, small, width = layout.font, layout.small, layout.width
    height = 250 if narrow else 340
    last_month = max((m for m, _, _ in months), default=1) or 1
    top_usd = max((max(o, c) for _, o, c in months), default=1.0)
    y_values = nice_ticks(top_usd * 1.05, 4 if narrow else 5)
    y_labels = [tick_label(t, money=True) for t in y_values]
    end = months[-1] if months else (0, 0.0, 0.0)
    own_text, cloud_text = f"own ${end[1]:,.0f}", f"rent ${end[2]:,.0f}"
    step = _month_step(last_month, 5 if narrow else 12)
    x_months = list(range(0, last_month + 1, step))
    x_labels = [_month_label(m) for m in x_months]
    left = _left_margin(y_labels, small)
    keys: tuple[Key, ...] = ()
    if narrow:
        # A legend above the plot: on 330 units the totals would squeeze the plot.
        own_key = Key(MARGIN, font, own_text, "own")
        after = round(MARGIN + 20 + text_width(own_text, font, bold=True) + 14, 1)
        fits = after + 20 + text_width(cloud_text, font, bold=True) <= width - MARGIN
        cloud_key = (
            Key(after, font, cloud_text, "cloud")
            if fits
            else Key(MARGIN, 2 * font + 4, cloud_text, "cloud")
        )
        keys = (own_key, cloud_key)
        top = cloud_key.y + 12
        right = round(width - text_width(x_labels[-1], small) / 2 - MARGIN, 1)
    else:
        top = 12
        # The totals right of the lines' ends, bold.
        widest = max(text_width(t, font, bold=True) for t in (own_text, cloud_text))
        right = round(width - widest - 6 - MARGIN, 1)
    bottom = height - 28
    plot_w, plot_h = right - left, bottom - top

    def x(month: float) -> float:
        return round(left + month / last_month * plot_w, 1)

    def y(usd: float) -> float:
        return round(top + plot_h - usd / y_values[-1] * plot_h, 1)

    be_x = be_y = None
    be_label = None
    if break_even_days is not None and break_even_days / MONTH_DAYS <= last_month:
        month = break_even_days / MONTH_DAYS
        be_x = x(month)
        # The cost where the lines cross, interpolated from the monthly points.
        for (m0, o0, _), (m1, o1, _) in zip(months, months[1:], strict=False):
            if m0 <= month <= m1:
                be_y = y(o0 + (o1 - o0) * (month - m0) / max(m1 - m0, 1))
                break
        # Right of the line if it fits in the plot, else left of it.
        text = "break-even"
        if be_x + 6 + text_width(text, small) <= right:
            be_label = Label(be_x + 6, top + small + 1, text)
        else:
            be_label = Label(be_x - 6, top + small + 1, text, "end")
    end_own = end_cloud = None
    if not narrow:
        own_y, cloud_y = _apart(y(end[1]) + 4, y(end[2]) + 4, font + 2, font, height - 4)
        end_own = Label(x(end[0]) + 6, round(own_y, 1), own_text)
        end_cloud = Label(x(end[0]) + 6, round(cloud_y, 1), cloud_text)
    return CostChart(
        layout=layout,
        height=height,
        left=left,
        right=right,
        top=top,
        bottom=bottom,
        own="M" + " L".join(f"{x(m)},{y(o)}" for m, o, _ in months),
        cloud="M" + " L".join(f"{x(m)},{y(c)}" for m, _, c in months),
        y_ticks=tuple(Tick(y(v), label) for v, label in zip(y_values, y_labels, strict=True)),
        x_ticks=tuple(
            Tick(x(m), label, _centred(x(m), label, small, MARGIN, width - MARGIN).x)
            for m, label in zip(x_months, x_labels, strict=True)
        ),
        break_even_x=be_x,
        break_even_y=be_y,
        break_even_label=be_label,
        end_own=end_own,
        end_cloud=end_cloud,
        keys=keys,
    )

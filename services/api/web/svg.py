"""Geometry of the pages' inline SVG charts (the templates only place what is computed here).

Inline SVG drawn on the server shows without JavaScript, is styled by the page's CSS
(dark mode included), keeps text selectable, and costs a few KB instead of an image
request; matplotlib draws the downloadable images (services/api/charts/render.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from services.api.charts.data import Bar, Metric, Series

# viewBox units; the SVG scales to its container.
BAR_WIDTH = 1000
NAME_COLUMN = 200
LABEL_COLUMN = 250
# Room right of the plot for the value printed after each whisker.
VALUE_GAP = 48
ROW = 30
BAR_HEIGHT = 18
TOP, BOTTOM = 8, 34


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
        return f"${value / 1000:g}k" if value >= 1000 else f"${value:g}"
    return f"{value:g}"


@dataclass(frozen=True, slots=True)
class BarShape:
    bar: Bar
    y: float
    width: float
    low_x: float
    high_x: float
    clipped: bool

    @property
    def mid(self) -> float:
        return self.y + BAR_HEIGHT / 2


@dataclass(frozen=True, slots=True)
class Tick:
    x: float
    label: str


@dataclass(frozen=True, slots=True)
class BarChart:
    metric: Metric
    width: int
    height: int
    plot_left: int
    plot_width: int
    shapes: tuple[BarShape, ...]
    ticks: tuple[Tick, ...]
    reference_x: float | None
    axis_label: str

    @property
    def axis_y(self) -> int:
        return self.height - BOTTOM


def bar_chart(items: Sequence[Bar], metric: Metric) -> BarChart:
    """Rows in rank order; intervals past 1.8x the best value are clipped at the edge."""
    label_column = LABEL_COLUMN if metric == "perf_per_dollar" else 130
    plot_width = BAR_WIDTH - NAME_COLUMN - label_column - VALUE_GAP
    top_value = max((b.value for b in items), default=1.0)
    top_high = max((b.high for b in items), default=1.0)
    ticks = nice_ticks(min(top_high, top_value * 1.8))
    scale = plot_width / ticks[-1]
    shapes = tuple(
        BarShape(
            bar=b,
            y=TOP + i * ROW + (ROW - BAR_HEIGHT) / 2,
            width=max(b.value * scale, 1.0),
            low_x=NAME_COLUMN + b.low * scale,
            high_x=NAME_COLUMN + min(b.high * scale, plot_width),
            clipped=b.high * scale > plot_width,
        )
        for i, b in enumerate(items)
    )
    height = TOP + ROW * max(len(items), 1) + BOTTOM
    reference = NAME_COLUMN + scale if metric == "performance" and ticks[-1] >= 1 else None
    return BarChart(
        metric=metric,
        width=BAR_WIDTH,
        height=height,
        plot_left=NAME_COLUMN,
        plot_width=plot_width,
        shapes=shapes,
        ticks=tuple(Tick(NAME_COLUMN + t * scale, tick_label(t)) for t in ticks),
        reference_x=reference,
        axis_label=(
            "performance per $1,000 of the build"
            if metric == "perf_per_dollar"
            else "throughput relative to the reference GPU"
        ),
    )


# --- price history --------------------------------------------------------------------

LINE_WIDTH, LINE_HEIGHT = 1000, 340
LEFT, RIGHT, LINE_TOP, LINE_BOTTOM = 56, 12, 12, 28


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


@dataclass(frozen=True, slots=True)
class LineChart:
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    shapes: tuple[SeriesShape, ...]
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]


def _year_ticks(start: datetime, end: datetime) -> list[datetime]:
    years = list(range(start.year + 1, end.year + 1))
    step = max(1, math.ceil(len(years) / 8))
    return [datetime(y, 1, 1, tzinfo=UTC) for y in years[::step]]


def line_chart(series: Sequence[Series]) -> LineChart:
    starts = [b.start for s in series for b in s.buckets]
    highs = [b.high for s in series for b in s.buckets]
    first = min(starts, default=datetime(2020, 1, 1, tzinfo=UTC))
    last = max(starts, default=datetime(2021, 1, 1, tzinfo=UTC))
    span = max((last - first).total_seconds(), 86400.0)
    y_ticks = nice_ticks(max(highs, default=1.0) * 1.05)
    plot_w = LINE_WIDTH - LEFT - RIGHT
    plot_h = LINE_HEIGHT - LINE_TOP - LINE_BOTTOM

    def x(t: datetime) -> float:
        return round(LEFT + (t - first).total_seconds() / span * plot_w, 1)

    def y(v: float) -> float:
        return round(LINE_TOP + plot_h - v / y_ticks[-1] * plot_h, 1)

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
    x_ticks = [Tick(x(t), str(t.year)) for t in _year_ticks(first, last)]
    return LineChart(
        width=LINE_WIDTH,
        height=LINE_HEIGHT,
        left=LEFT,
        right=LINE_WIDTH - RIGHT,
        top=LINE_TOP,
        bottom=LINE_TOP + plot_h,
        shapes=tuple(shapes),
        y_ticks=tuple(Tick(y(t), tick_label(t, money=True)) for t in y_ticks),
        x_ticks=tuple(x_ticks),
    )


# --- cumulative cost (TCO) --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CostChart:
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    own: str  # SVG path data
    cloud: str
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]
    break_even_x: float | None
    break_even_y: float | None
    end_own: Point
    end_cloud: Point


def cost_chart(
    months: Sequence[tuple[int, float, float]], break_even_days: float | None
) -> CostChart:
    """Cumulative own and rent cost per month; the break-even marked where they cross."""
    last_month = max((m for m, _, _ in months), default=1) or 1
    top_usd = max((max(o, c) for _, o, c in months), default=1.0)
    y_ticks = nice_ticks(top_usd * 1.05)
    plot_w = LINE_WIDTH - LEFT - 90  # room for end labels
    plot_h = LINE_HEIGHT - LINE_TOP - LINE_BOTTOM

    def x(month: float) -> float:
        return round(LEFT + month / last_month * plot_w, 1)

    def y(usd: float) -> float:
        return round(LINE_TOP + plot_h - usd / y_ticks[-1] * plot_h, 1)

    own = "M" + " L".join(f"{x(m)},{y(o)}" for m, o, _ in months)
    cloud = "M" + " L".join(f"{x(m)},{y(c)}" for m, _, c in months)
    step = 12 if last_month > 24 else 6 if last_month > 12 else 3
    x_ticks = tuple(
        Tick(x(m), f"{m // 12} y" if m % 12 == 0 and m else f"{m} mo")
        for m in range(0, last_month + 1, step)
    )
    be_x = be_y = None
    if break_even_days is not None and break_even_days / 30.4375 <= last_month:
        month = break_even_days / 30.4375
        be_x = x(month)
        # The cost where the lines cross, interpolated from the monthly points.
        for (m0, o0, _), (m1, o1, _) in zip(months, months[1:], strict=False):
            if m0 <= month <= m1:
                be_y = y(o0 + (o1 - o0) * (month - m0) / max(m1 - m0, 1))
                break
    end = months[-1] if months else (0, 0.0, 0.0)
    return CostChart(
        width=LINE_WIDTH,
        height=LINE_HEIGHT,
        left=LEFT,
        right=LEFT + plot_w,
        top=LINE_TOP,
        bottom=LINE_TOP + plot_h,
        own=own,
        cloud=cloud,
        y_ticks=tuple(Tick(y(t), tick_label(t, money=True)) for t in y_ticks),
        x_ticks=x_ticks,
        break_even_x=be_x,
        break_even_y=be_y,
        end_own=Point(x(end[0]) + 6, y(end[1]) + 4, f"own ${end[1]:,.0f}"),
        end_cloud=Point(x(end[0]) + 6, y(end[2]) + 4, f"rent ${end[2]:,.0f}"),
    )

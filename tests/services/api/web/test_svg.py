"""The inline charts' geometry (services/api/web/svg.py) and the series palette: every label
inside its drawing, shortened rather than clipped; each series its own look."""

from __future__ import annotations

import itertools
import math
import re
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest

from services.api.charts import render
from services.api.charts.data import Bar, Bucket, Series, short_name
from services.api.web import svg
from services.api.web.render import STATIC_DIR
from shared.catalog.specs import load_catalog

LONGEST_NAME = max((g.name for g in load_catalog().gpus), key=len)


def _bar(rank: int, name: str, value: float, high: float, usd: str, count: int = 1) -> Bar:
    return Bar(
        rank=rank,
        gpu_id=f"gpu-{rank}",
        name=name,
        memory_gb=288.0,
        value=value,
        low=value * 0.9,
        high=high,
        price_usd=Decimal(usd),
        condition="refurbished",
        kind="snapshot",
        observed=date(2026, 9, 30),
        basis="calibrated-model",
        count=count,
    )


def _extent(label: svg.Label, size: float, bold: bool = False) -> tuple[float, float]:
    width = svg.text_width(label.text, size, bold)
    start = {"start": label.x, "middle": label.x - width / 2, "end": label.x - width}
    return start[label.anchor], start[label.anchor] + width


def _inside(extent: tuple[float, float], width: float) -> bool:
    return 0 <= extent[0] and extent[1] <= width


def test_fit_shortens_with_an_ellipsis_and_never_overruns() -> None:
    assert svg.fit("RTX 3090", 12, 200) == "RTX 3090"
    short = svg.fit(LONGEST_NAME, 13, 120)
    assert short.endswith("…") and LONGEST_NAME.startswith(short[:-1].rstrip())
    assert svg.text_width(short, 13) <= 120
    # Measured with DejaVu Sans's advances: digits are all 0.636 em, bold ones 0.696 em.
    assert svg.text_width("1234567890", 10) == pytest.approx(63.6)
    assert svg.text_width("1234567890", 10, bold=True) == pytest.approx(69.6)


@pytest.mark.parametrize("metric", ["perf_per_dollar", "performance"])
def test_bar_labels_stay_inside_both_drawings(metric) -> None:
    """The longest catalog name, a build-of-64 price label, a value past the clip and a
    four-digit one: in the wide and the narrow drawing every text is within the width."""
    items = [
        _bar(1, LONGEST_NAME, 1234.0, 1300.0, "1234567.89", count=64),
        _bar(2, "NVIDIA GeForce RTX 3090", 0.5, 9000.0, "704"),
        _bar(3, "A10", 0.012, 0.02, "2931"),
    ]
    chart = svg.bar_chart(items, metric)
    assert chart.narrow is not None
    for drawing in (chart, chart.narrow):
        layout = drawing.layout
        assert drawing.width == layout.width
        for shape in drawing.shapes:
            name = shape.name.text + shape.memory
            name_width = svg.text_width(shape.name.text, layout.font) + svg.text_width(
                shape.memory, layout.small
            )
            name_start = shape.name.x - (name_width if shape.name.anchor == "end" else 0)
            assert 0 <= name_start and name_start + name_width <= layout.width, name
            assert _inside(_extent(shape.value, layout.small, bold=True), layout.width)
            assert _inside(_extent(shape.price, layout.small), layout.width)
            assert shape.high_x <= drawing.plot_left + drawing.plot_width + 0.05
        assert _inside(_extent(drawing.axis_label, layout.small), layout.width)
        for tick in drawing.ticks:
            label = svg.Label(tick.text_x, 0, tick.label, "middle")
            assert _inside(_extent(label, layout.small), layout.width)
    # The wild interval is clipped and marked; the long name is shortened on a phone only
    # if it must be, and then with an ellipsis.
    assert [s.clipped for s in chart.shapes] == [False, True, False]
    assert chart.shapes[1].value.text.endswith(" ›")
    narrow_name = chart.narrow.shapes[0].name.text.strip()
    assert narrow_name == short_name(LONGEST_NAME) or narrow_name.endswith("…")


def _months(years: int, own: float, rent: float) -> list[tuple[int, float, float]]:
    return [
        (m, own * (0.6 + 0.4 * m / (12 * years)), rent * m / (12 * years))
        for m in range(12 * years + 1)
    ]


@pytest.mark.parametrize(
    ("months", "break_even_days"),
    [
        (_months(10, 12_345_678.0, 98_765_432.0), 400.0),  # long totals
        (_months(3, 2_368.0, 2_368.0), 3 * 365.25 - 1),  # equal totals, break-even at the end
        (_months(20, 1_500.0, 900_000.0), 10.0),  # one total dwarfs the other
    ],
)
def test_cost_labels_are_inside_and_apart(months, break_even_days) -> None:
    chart = svg.cost_chart(months, break_even_days)
    assert chart.narrow is not None
    assert chart.end_own and chart.end_cloud and not chart.keys
    font = chart.layout.font
    for label in (chart.end_own, chart.end_cloud):
        assert _inside(_extent(label, font, bold=True), chart.width), label
        assert font <= label.y <= chart.height - 4
    assert abs(chart.end_own.y - chart.end_cloud.y) >= font + 2 - 0.1
    narrow = chart.narrow
    assert narrow.end_own is None and [k.kind for k in narrow.keys] == ["own", "cloud"]
    for key in narrow.keys:
        assert (
            key.x >= 0
            and key.x + 20 + svg.text_width(key.text, narrow.layout.font, True) <= narrow.width
        )
        assert key.y < narrow.top  # above the plot
    for drawing in (chart, narrow):
        small = drawing.layout.small
        assert drawing.break_even_label is not None
        start, end = _extent(drawing.break_even_label, small)
        # Beside the break-even line, within the plot: never under the totals.
        assert drawing.left <= start and end <= drawing.right
        for tick in drawing.x_ticks:
            extent = _extent(svg.Label(tick.text_x, 0, tick.label, "middle"), small)
            assert _inside(extent, drawing.width)
        ticks = [(t.text_x, svg.text_width(t.label, small)) for t in drawing.x_ticks]
        for (x0, w0), (x1, w1) in itertools.pairwise(ticks):
            assert x0 + w0 / 2 < x1 - w1 / 2, "x tick labels overlap"
        for tick in drawing.y_ticks:
            assert drawing.left - 6 - svg.text_width(tick.label, small) >= 0


def test_price_history_year_labels_fit_a_phone() -> None:
    start = datetime(2012, 3, 1, tzinfo=UTC)
    buckets = tuple(
        Bucket(start + timedelta(days=91 * i), 1000.0 + i, 900.0, 1100.0 + i, 3) for i in range(60)
    )
    chart = svg.line_chart([Series("used", "eBay", "sold", buckets)])
    assert chart.narrow is not None
    assert len(chart.narrow.x_ticks) <= 4 < len(chart.x_ticks)
    for drawing in (chart, chart.narrow):
        small = drawing.layout.small
        ticks = [(t.text_x, svg.text_width(t.label, small)) for t in drawing.x_ticks]
        assert all(x - w / 2 >= 0 and x + w / 2 <= drawing.width for x, w in ticks)
        assert all(a + wa / 2 < b - wb / 2 for (a, wa), (b, wb) in itertools.pairwise(ticks))


def test_no_two_of_the_first_32_series_look_alike() -> None:
    styles = [render.series_style(i) for i in range(32)]
    assert len(set(styles)) == 32
    assert len({colour for colour, _ in styles[:8]}) == 8  # eight colours before any repeat
    series = Series(
        "used", "x", "snapshot", (Bucket(datetime(2025, 1, 1, tzinfo=UTC), 1, 1, 1, 1),)
    )
    shapes = svg.line_chart([series] * 9).shapes
    assert shapes[0].style == "c0 d0" and shapes[8].style == "c0 d1"


# --- the palette ----------------------------------------------------------------------

# Machado, Oliveira and Fernandes (2009), severity 1, on linear RGB.
DEFICIENCIES = {
    "typical": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}
# CIE76 distance between any two series colours, as each group of viewers sees them: 2.3
# is a just-noticeable difference; Okabe-Ito's own closest pair is 16.
MIN_DISTANCE = 15


def _linear(hex_colour: str) -> list[float]:
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    return [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]


def _lab(rgb: list[float]) -> tuple[float, float, float]:
    r, g, b = (min(max(c, 0.0), 1.0) for c in rgb)
    xyz = (
        (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
        0.2126 * r + 0.7152 * g + 0.0722 * b,
        (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883,
    )
    fx, fy, fz = (t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in xyz)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def _seen(hex_colour: str, matrix: tuple[tuple[float, ...], ...]) -> tuple[float, float, float]:
    rgb = _linear(hex_colour)
    return _lab([sum(m * c for m, c in zip(row, rgb, strict=True)) for row in matrix])


def _luminance(hex_colour: str) -> float:
    r, g, b = _linear(hex_colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _css_palettes() -> tuple[list[str], list[str]]:
    """style.css's --c0 to --c7: the light theme's, then the dark one's."""
    css = (STATIC_DIR / "style.css").read_text()
    dark_at = css.index("prefers-color-scheme: dark")
    found = [
        (m.start(), int(m[1]), m[2].lower())
        for m in re.finditer(r"--c(\d): (#[0-9a-f]{6})", css, re.I)
    ]
    light = [c for at, _, c in sorted(found, key=lambda f: f[1]) if at < dark_at]
    dark = [c for at, _, c in sorted(found, key=lambda f: f[1]) if at > dark_at]
    return light, dark


def test_the_pages_and_the_images_share_the_light_palette() -> None:
    light, dark = _css_palettes()
    assert light == list(render.SERIES_COLOURS)
    assert len(dark) == len(light) == 8


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_series_colours_stay_apart_with_colour_vision_deficiencies(theme) -> None:
    light, dark = _css_palettes()
    palette, background = (light, "#ffffff") if theme == "light" else (dark, "#111827")
    for name, matrix in DEFICIENCIES.items():
        seen = [_seen(c, matrix) for c in palette]
        closest = min(math.dist(a, b) for a, b in itertools.combinations(seen, 2))
        assert closest >= MIN_DISTANCE, (theme, name, closest)
    # Every line stands out from the panel (the dash patterns carry the two weakest too).
    for colour in palette:
        high, low = sorted((_luminance(colour), _luminance(background)), reverse=True)
        assert (high + 0.05) / (low + 0.05) >= 2.2, colour

"""The price-history PNG: a look of its own for every series, as the page draws it (read
from matplotlib's SVG export of the same figure; the SVG image is history_svg's)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta

from services.api.charts import render
from services.api.charts.data import Bucket, Series
from tests.services.api.charts.svg_looks import series_look


def _series(count: int) -> list[Series]:
    start = datetime(2025, 1, 1, tzinfo=UTC)
    return [
        Series(
            "used",
            f"source {i}",
            "snapshot",
            tuple(
                Bucket(start + timedelta(days=30 * k), 100.0 + 10 * i + k, 90.0, 130.0 + i, 2)
                for k in range(3)
            ),
        )
        for i in range(count)
    ]


def test_nine_series_each_drawn_their_own_way() -> None:
    """Eight series of one condition used to share one colour (four dash patterns for
    eight lines); now eight colours, and the ninth repeats a colour with another dash."""
    root = ET.fromstring(render.line_chart(_series(9), "t", "svg", "d"))
    looks = [series_look(root, i) for i in range(9)]
    colours = [colour for colour, _ in looks]
    assert colours[:8] == list(render.SERIES_COLOURS)
    assert colours[8] == colours[0] and looks[8] != looks[0]
    assert len(set(looks)) == 9

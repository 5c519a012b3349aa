"""The price-history PNG: a look of its own for every series, as the page draws it (read
from matplotlib's SVG export of the same figure; the SVG image is history_svg's)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta

from services.api.charts import render
from services.api.charts.data import Bucket, Series

SVG_NS = "{http://www.w3.org/2000/svg}"


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


def _style(element: ET.Element) -> dict[str, str]:
    pairs = (item.split(":", 1) for item in element.get("style", "").split(";") if ":" in item)
    return {key.strip(): value.strip() for key, value in pairs}


def test_nine_series_each_drawn_their_own_way() -> None:
    """Eight series of one condition used to share one colour (four dash patterns for
    eight lines); now eight colours, and the ninth repeats a colour with another dash."""
    root = ET.fromstring(render.line_chart(_series(9), "t", "svg", "d"))
    looks = []
    for i in range(9):
        group = root.find(f".//{SVG_NS}g[@id='series-{i}-used']")
        assert group is not None
        path = group.find(f"{SVG_NS}path")
        assert path is not None
        style = _style(path)
        looks.append((style["stroke"], style.get("stroke-dasharray", "solid")))
    colours = [colour for colour, _ in looks]
    assert colours[:8] == list(render.SERIES_COLOURS)
    assert colours[8] == colours[0] and looks[8] != looks[0]
    assert len(set(looks)) == 9

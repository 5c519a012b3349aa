"""The price-history PNG: a look of its own for every series, as the page draws it (read
from matplotlib's SVG export of the same figure; the SVG image is history_svg's)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from services.api.charts import render
from tests.services.api.charts.series_fixtures import monthly_series
from tests.services.api.charts.svg_looks import series_look


def test_nine_series_each_drawn_their_own_way() -> None:
    """Eight series of one condition used to share one colour (four dash patterns for
    eight lines); now eight colours, and the ninth repeats a colour with another dash."""
    root = ET.fromstring(render.line_chart(monthly_series(9), "t", "svg", "d"))
    looks = [series_look(root, i) for i in range(9)]
    colours = [colour for colour, _ in looks]
    assert colours[:8] == list(render.SERIES_COLOURS)
    assert colours[8] == colours[0] and looks[8] != looks[0]
    assert len(set(looks)) == 9

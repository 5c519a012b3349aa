"""The price-history SVG image (charts/history_svg.py): what the matplotlib image showed
(title, a look of its own per series, the legend's labels, the text alternative), every
label inside the image, and a chart right after a new price that shows it (both backends)."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from services.api.charts import data, history_svg, render
from services.api.charts.data import Bucket, Series
from services.api.charts.service import observations
from services.api.web.svg import text_width
from shared.catalog.specs import load_catalog
from shared.kit.db import session_scope
from tests.factories import make_observation
from tests.services.api.charts.series_fixtures import monthly_series
from tests.services.api.charts.svg_looks import SVG, series_look, style
from tests.services.api.conftest import NOW

GPU = "rtx-3090"


def _texts(root: ET.Element) -> list[str]:
    """What each text shows (a shortened label's <title> is its tooltip)."""
    return [t.text or "" for t in root.iter(f"{SVG}text")]


def test_nine_series_each_drawn_their_own_way_in_the_chart_and_the_legend() -> None:
    root = ET.fromstring(history_svg.line_chart(monthly_series(9), "t", "d"))
    lines, swatches = [], []
    legend = root.find(f".//{SVG}g[@id='legend']")
    assert legend is not None
    for i, swatch in enumerate(legend.findall(f"{SVG}path")):
        swatches.append((swatch.get("stroke"), swatch.get("stroke-dasharray", "solid")))
        lines.append(series_look(root, i))
    colours = [colour for colour, _ in lines]
    assert colours[:8] == list(render.SERIES_COLOURS)
    assert colours[8] == colours[0] and lines[8] != lines[0]
    assert len(set(lines)) == 9
    assert swatches == lines


def test_a_single_price_is_a_diamond_in_its_colour_and_the_legend_says_so() -> None:
    one = Series(
        "new", "GPU catalog launch MSRP", "msrp", (Bucket(NOW, 1499.0, 1499.0, 1499.0, 1),)
    )
    root = ET.fromstring(history_svg.line_chart([*monthly_series(1), one], "t", "d"))
    group = root.find(f".//{SVG}g[@id='series-1-new']")
    assert group is not None
    marker = group.find(f"{SVG}path")
    assert marker is not None
    assert style(marker)["fill"] == render.SERIES_COLOURS[1]
    assert "new · GPU catalog launch MSRP (msrp, n=1)" in _texts(root)


def test_title_text_alternative_and_labels_as_the_matplotlib_image_had_them() -> None:
    series = monthly_series(3)
    desc = data.series_text("NVIDIA GeForce RTX 3090", series)
    root = ET.fromstring(history_svg.line_chart(series, "RTX 3090: price history", desc))
    assert root.get("role") == "img"
    assert root.get("aria-labelledby") == "chart-title chart-desc"
    title, found = root.find(f"{SVG}title"), root.find(f"{SVG}desc")
    assert title is not None and title.text == "RTX 3090: price history"
    assert found is not None and found.text == desc
    texts = _texts(root)
    assert "RTX 3090: price history" in texts
    assert {f"{s.label} ({s.kind}, n={s.n})" for s in series} <= set(texts)
    assert {"$0", "$50", "$100", "$150"} <= set(texts)  # the y axis, as matplotlib wrote it
    assert {"2025-02", "2025-03"} <= set(texts)


def test_every_label_inside_the_image_and_long_ones_shortened() -> None:
    series = monthly_series(12, buckets=40, source="a very long source name " * 4)
    root = ET.fromstring(history_svg.line_chart(series, "t", "d"))
    width = float(root.get("width", "0"))
    assert width == history_svg.WIDTH
    for text in root.iter(f"{SVG}text"):
        shown = text.text or ""
        assert shown
        size = float(text.get("font-size") or 0) or _size_of(root, text)
        extent = text_width(shown, size, bold=text.get("font-weight") == "bold")
        x = float(text.get("x", "0"))
        start = {"start": x, "middle": x - extent / 2, "end": x - extent}
        left = start[text.get("text-anchor") or _anchor_of(root, text)]
        assert 0 <= left and left + extent <= width, shown
    shortened = [t for t in root.iter(f"{SVG}text") if t.find(f"{SVG}title") is not None]
    assert len(shortened) == 12  # each legend entry, its full label in its tooltip
    assert all((t.text or "").endswith("…") for t in shortened)


def _parent(root: ET.Element, child: ET.Element) -> ET.Element | None:
    return next((p for p in root.iter() if child in list(p)), None)


def _size_of(root: ET.Element, text: ET.Element) -> float:
    parent = _parent(root, text)
    return float(parent.get("font-size", "0")) if parent is not None else 0.0


def _anchor_of(root: ET.Element, text: ET.Element) -> str:
    parent = _parent(root, text)
    return (parent.get("text-anchor") if parent is not None else None) or "start"


def test_text_is_escaped() -> None:
    series = [Series("used", "A&B <script>", "scraped", monthly_series(1)[0].buckets)]
    svg = history_svg.line_chart(series, "x <y> & z", data.series_text("<gpu>", series))
    root = ET.fromstring(svg)
    assert b"<script>" not in svg
    assert "used · A&B <script> (scraped, n=6)" in _texts(root)


def test_no_series_no_lines() -> None:
    root = ET.fromstring(history_svg.line_chart([], "t", "No price observations of X."))
    assert "No price observations" in _texts(root)
    assert not [e for e in root.iter() if e.get("id", "").startswith("series-")]


@pytest.mark.parametrize(
    ("first", "last", "labels"),
    [
        (datetime(2020, 8, 20), datetime(2026, 11, 1), [str(y) for y in range(2021, 2027)]),
        (
            datetime(2025, 1, 15),
            datetime(2025, 5, 31),
            ["2025-02", "2025-03", "2025-04", "2025-05"],
        ),
        (datetime(2024, 12, 20), datetime(2026, 11, 1), None),  # months, every other one
        (
            datetime(2026, 3, 3, 12),
            datetime(2026, 3, 6),
            ["2026-03-04", "2026-03-05", "2026-03-06"],
        ),
        (datetime(2026, 3, 3, 12), datetime(2026, 3, 3, 12), ["2026-03-03"]),  # one period
    ],
)
def test_x_ticks_mark_years_months_or_days(first, last, labels) -> None:
    first, last = first.replace(tzinfo=UTC), last.replace(tzinfo=UTC)
    ticks = history_svg.x_ticks(first, last)
    assert 1 <= len(ticks) <= history_svg.MOST_X_TICKS
    assert all(first <= at <= last for at, _ in ticks)
    assert [at for at, _ in ticks] == sorted(at for at, _ in ticks)
    if labels is not None:
        assert [label for _, label in ticks] == labels
    else:
        assert [label for _, label in ticks][:3] == ["2025-01", "2025-03", "2025-05"]


def test_x_tick_labels_never_overlap() -> None:
    start = datetime(2012, 3, 1, tzinfo=UTC)
    buckets = tuple(
        Bucket(start + timedelta(days=91 * i), 1000.0, 900.0, 1100.0, 3) for i in range(60)
    )
    root = ET.fromstring(
        history_svg.line_chart([Series("used", "eBay", "sold", buckets)], "t", "d")
    )
    ticks = [
        (float(t.get("x", "0")), text_width(t.text or "", history_svg.SMALL))
        for t in root.iter(f"{SVG}text")
        if t.get("text-anchor") == "middle"
    ]
    assert len(ticks) >= 5
    assert all(a + wa / 2 < b - wb / 2 for (a, wa), (b, wb) in itertools.pairwise(ticks))


def _chart(client: TestClient) -> bytes:
    response = client.get("/charts/price-history.svg", params={"gpu": GPU})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "image/svg+xml"
    return response.content


def test_the_image_right_after_a_new_price_shows_it(market_client: TestClient) -> None:
    """A price of a cached chart's GPU: the next image counts it and draws its period, and
    equals the image of the series computed from every row."""
    before = _chart(market_client)
    assert _chart(market_client) == before  # nothing stored since: the same image
    engine = market_client.app.state.engine  # type: ignore[attr-defined]
    with session_scope(engine) as session:
        session.add(make_observation(gpu_id=GPU, usd="700.00", observed_at=NOW))
    after = _chart(market_client)
    assert after != before
    root = ET.fromstring(after)
    texts = _texts(root)
    assert "used · test-market (scraped, n=2)" in texts
    desc = root.find(f"{SVG}desc")
    assert desc is not None and desc.text
    assert "used · test-market (scraped): 2 prices" in desc.text
    assert "latest period median $750 ($700-$800)" in desc.text
    with session_scope(engine) as session:
        series = data.price_series(observations(session, GPU))
    name = load_catalog().by_id[GPU].name
    desc_text = data.series_text(name, series)
    assert after == history_svg.line_chart(series, "RTX 3090: price history", desc_text)


def test_a_single_date_is_drawn_in_the_middle_with_its_date() -> None:
    one = (Bucket(NOW, 750.0, 700.0, 800.0, 2),)
    series = [Series("new", "a", "msrp", one), Series("used", "b", "scraped", one)]
    root = ET.fromstring(history_svg.line_chart(series, "t", "d"))
    xs = set()
    for i, condition in enumerate(("new", "used")):
        group = root.find(f".//{SVG}g[@id='series-{i}-{condition}']")
        assert group is not None
        path = group.find(f"{SVG}path")
        assert path is not None
        xs.add(float(path.get("d", "").split(",")[0][1:]))
    (x,) = xs
    assert abs(x - history_svg.WIDTH / 2) < 30
    assert NOW.date().isoformat() in _texts(root)

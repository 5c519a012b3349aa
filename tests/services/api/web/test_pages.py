"""The HTML pages: server-rendered, usable without JavaScript, escaping what users type."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from services.api.web import optional
from shared.catalog.specs import load_catalog
from tests.services.api.web.conftest import BROWSER

MAX_PAGE_BYTES = 200_000


class _Bars(HTMLParser):
    """Collects the bar groups of the inline charts: (chart id, rank, gpu, memory)."""

    def __init__(self) -> None:
        super().__init__()
        self.chart = ""
        self.bars: list[tuple[str, int, str, float]] = []
        self.table_gpus: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and a.get("id", "").startswith("chart-"):
            self.chart = a["id"]
        if tag == "g" and "data-gpu" in a:
            self.bars.append(
                (self.chart, int(a["data-rank"]), a["data-gpu"], float(a["data-memory-gb"]))
            )
        if tag == "tr" and "data-gpu" in a:
            self.table_gpus.append(a["data-gpu"])


def _parse(html: str) -> _Bars:
    parser = _Bars()
    parser.feed(html)
    return parser


def test_home_shows_chart_and_table_of_recommend(web_client):
    page = web_client.get("/?task=cv&memory_gb=24")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert len(page.content) < MAX_PAGE_BYTES
    assert "page;dur=" in page.headers["server-timing"]
    expected = [
        r["gpu"]["id"] for r in web_client.get("/recommend?task=cv&memory_gb=24").json()["results"]
    ]
    parsed = _parse(page.text)
    per_dollar = [gpu for chart, _, gpu, _ in parsed.bars if chart == "chart-perf-per-dollar"]
    performance = [gpu for chart, _, gpu, _ in parsed.bars if chart == "chart-performance"]
    assert per_dollar == performance == parsed.table_gpus == expected
    catalog = load_catalog()
    assert all(catalog.by_id[gpu].memory_gb >= 24 for _, _, gpu, _ in parsed.bars)
    # Text alternatives for the charts, and the form keeps the query.
    assert page.text.count('<desc id="chart-') == 2
    assert 'value="24"' in page.text
    assert '<option value="cv" data-memory="10" selected>' in page.text


def test_default_view_and_empty_form_fields(web_client):
    assert web_client.get("/").status_code == 200
    # A GET form sends empty fields; they mean "default", as if left out.
    page = web_client.get("/?task=nlp&memory_gb=&budget_usd=&count=&precision=fp16&condition=any")
    assert page.status_code == 200
    assert "11 GB per GPU" in page.text  # nlp's default minimum memory
    fragment = web_client.get("/fragments/recommendation?task=cv&memory_gb=24")
    assert fragment.status_code == 200
    assert fragment.text.lstrip().startswith('<div id="results"')
    assert "<html" not in fragment.text


@pytest.mark.parametrize(
    ("query", "field", "valid"),
    [
        ("task=chess", "task", "&#39;cv&#39;, &#39;nlp&#39;"),
        ("task=cv&memory_gb=-1", "memory_gb", "greater than 0"),
        ("task=cv&condition=mint", "condition", "&#39;new&#39;"),
        ("task=cv&memory_gb=8&params_b=7", "memory_gb", "params_b"),
    ],
)
def test_bad_input_is_a_422_page_naming_the_field(web_client, query, field, valid):
    page = web_client.get(f"/?{query}")
    assert page.status_code == 422
    assert page.headers["content-type"].startswith("text/html")
    assert f"<strong>{field}</strong>" in page.text
    assert valid in page.text
    assert 'id="query"' in page.text  # the form is still there to fix the mistake
    fragment = web_client.get(f"/fragments/recommendation?{query}")
    assert fragment.status_code == 422 and f"<strong>{field}</strong>" in fragment.text


def test_user_input_is_escaped(web_client):
    attack = '"><script>alert(1)</script>'
    page = web_client.get("/", params={"task": "cv", "memory_gb": attack, "budget_usd": attack})
    assert page.status_code == 422
    assert "<script>alert(1)</script>" not in page.text
    assert "&lt;script&gt;" in page.text
    gpu = web_client.get("/gpus/<img src=x onerror=alert(1)>", headers=BROWSER)
    assert gpu.status_code == 404
    assert "<img src=x" not in gpu.text


def test_gpu_page_for_browsers_json_for_api_clients(web_bundled):
    page = web_bundled.get("/gpus/rtx-3090", headers=BROWSER)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert len(page.content) < MAX_PAGE_BYTES
    text = page.text
    for heading in ("Market price", "Price history", "Model predictions", "Cloud $/GPU-hour"):
        assert heading in text
    assert "Specifications and provenance" in text and "gpu_catalog.csv" in text
    # Model predictions per task with their basis; the reference GPU is measured.
    assert text.count('class="basis measured"') >= 8
    # The price history chart, with its text alternative and its series.
    match = re.search(r'<svg class="chart lines" id="chart-price-history".*?</svg>', text, re.S)
    assert match, "inline price history chart"
    root = ET.fromstring(match.group(0))
    assert root.find("{http://www.w3.org/2000/svg}desc") is not None or "<desc" in match.group(0)
    assert 'data-condition="new"' in match.group(0) and 'data-condition="used"' in match.group(0)
    api = web_bundled.get("/gpus/rtx-3090")
    assert api.headers["content-type"] == "application/json"
    assert api.json()["id"] == "rtx-3090"
    json_first = web_bundled.get(
        "/gpus/rtx-3090", headers={"Accept": "application/json, text/html;q=0.5"}
    )
    assert json_first.headers["content-type"] == "application/json"


def test_unknown_gpu_page_is_404(web_client):
    page = web_client.get("/gpus/voodoo-5", headers=BROWSER)
    assert page.status_code == 404
    assert "unknown GPU" in page.text and page.headers["content-type"].startswith("text/html")


def test_tco_page(web_bundled):
    # The bundle has cloud offers to rent (the controlled market has none).
    web_client = web_bundled
    page = web_client.get("/tco", headers=BROWSER)
    assert page.status_code == 200
    assert 'id="tco-form"' in page.text
    if optional.tco_endpoint() is None:
        assert "The own-vs-rent calculator is not available yet" in page.text
    else:
        assert 'id="tco-result"' in page.text and "Cumulative cost: own vs rent" in page.text
        assert "break even" in page.text
        bad = web_client.get("/tco?gpu=rtx-4090&utilization=7", headers=BROWSER)
        assert bad.status_code == 422 and "<strong>utilization</strong>" in bad.text


def test_quotes_page_says_what_is_not_there_yet(web_client):
    page = web_client.get("/quotes", headers=BROWSER)
    assert page.status_code == 200
    if optional.quotes_endpoint() is None:
        assert "Quotes are not available yet" in page.text


def test_static_assets_ship_with_the_package(web_client):
    page = web_client.get("/").text
    for name in ("style.css", "app.js", "favicon.svg"):
        url = re.search(rf"/static/{re.escape(name)}\?v=[0-9a-f]+", page)
        assert url, name
        asset = web_client.get(url.group(0))
        assert asset.status_code == 200
        assert "immutable" in asset.headers["cache-control"]
    assert web_client.get("/static/../app.py").status_code == 404
    assert "https://" not in page.split("<main")[0]  # no CDN in the head

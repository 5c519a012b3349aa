"""The pages in a real browser: Debian's Chromium driven by Playwright, against uvicorn.

Slow (a browser and a server); kept to a few journeys, and one pass over the pages at a
phone's 390 px and a desktop's width measuring what a reader gets: type size, labels
inside their charts, whole select options, a look per chart series. Screenshots go to a
temporary directory; `make screenshots` writes them to docs/screenshots/.
Needs /usr/bin/chromium: infra/dev/browser-up.sh installs it.
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn

from services.api.app import create_app
from shared.catalog.specs import load_catalog
from shared.catalog.tasks import TASK_NAMES
from tests.conftest import make_settings, new_database

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
# Set by `make screenshots`; otherwise the pictures go to a temporary directory, so that
# `make test` leaves the tracked ones alone.
SCREENSHOT_DIR_ENV = "GPU_ADVISOR_SCREENSHOT_DIR"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 15_000
REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """uvicorn on 127.0.0.1 (ephemeral port) over a fresh SQLite with the bundled data."""
    directory = tmp_path_factory.mktemp("browser-db")
    url, _ = new_database("sqlite", directory)
    app = create_app(make_settings(url, directory))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not uv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    uv.should_exit = True
    thread.join(timeout=30)
    sock.close()


def _context(tmp_path: Path, javascript: bool = True):
    if not CHROMIUM.exists():
        pytest.fail("no /usr/bin/chromium: run infra/dev/browser-up.sh")
    from playwright.sync_api import sync_playwright

    manager = sync_playwright()
    playwright = manager.start()
    context = playwright.chromium.launch_persistent_context(
        str(tmp_path / "profile"),  # a fresh --user-data-dir per test
        executable_path=str(CHROMIUM),
        headless=True,
        args=CHROMIUM_ARGS,
        java_script_enabled=javascript,
        viewport={"width": 1280, "height": 900},
    )
    context.set_default_timeout(TIMEOUT_MS)
    return manager, context


@pytest.fixture
def browser(tmp_path: Path):
    manager, context = _context(tmp_path)
    # The pages run under a strict Content-Security-Policy: anything it blocked (an inline
    # script or style, a foreign origin) would show here as a console message. ReDoc's
    # bundle hard-codes its "powered by" logo on cdn.redoc.ly: blocking it is the policy
    # doing its job (no network beyond the server), not a broken page.
    blocked: list[str] = []
    context.on(
        "console",
        lambda message: (
            blocked.append(message.text)
            if "Content Security Policy" in message.text and REDOC_LOGO not in message.text
            else None
        ),
    )
    yield context
    context.close()
    manager.__exit__(None, None, None)
    assert not blocked, blocked


def _bars(page, chart="chart-perf-per-dollar"):
    return page.eval_on_selector_all(
        f"#{chart} g.bar",
        "els => els.map(e => [e.dataset.gpu, parseFloat(e.dataset.memoryGb)])",
    )


@pytest.fixture
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    configured = os.environ.get(SCREENSHOT_DIR_ENV)
    if not configured:
        return tmp_path_factory.mktemp("screenshots")
    directory = Path(configured)
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def _recommended(base: str, query: str) -> list[str]:
    answer = httpx.get(f"{base}/recommend?{query}", timeout=10).json()
    return [r["gpu"]["id"] for r in answer["results"]]


def test_chart_follows_the_form(server, browser, screenshots):
    page = browser.new_page()
    page.goto(f"{server}/?task=cv&memory_gb=24")
    bars = _bars(page)
    assert [gpu for gpu, _ in bars] == _recommended(server, "task=cv&memory_gb=24")
    assert bars and all(memory >= 24 for _, memory in bars)
    page.screenshot(path=str(screenshots / "recommend-cv-24gb.png"), full_page=True)

    # Change task and memory: the script swaps in a new chart and updates the URL.
    page.select_option("#task", "llm-inference")
    page.fill("#memory_gb", "48")
    page.wait_for_url(re.compile(r"task=llm-inference.*memory_gb=48"))
    page.wait_for_function(
        "() => { const r = document.getElementById('results');"
        " return r && !r.classList.contains('loading')"
        " && document.querySelectorAll('#chart-perf-per-dollar g.bar').length > 0"
        " && [...document.querySelectorAll('#chart-perf-per-dollar g.bar')]"
        ".every(g => parseFloat(g.dataset.memoryGb) >= 48); }"
    )
    bars = _bars(page)
    catalog = load_catalog()
    assert all(catalog.by_id[gpu].memory_gb >= 48 for gpu, _ in bars)
    query = page.url.split("?", 1)[1]
    assert [gpu for gpu, _ in bars] == _recommended(server, query)
    assert [gpu for gpu, _ in _bars(page, "chart-performance")] == [gpu for gpu, _ in bars]
    page.screenshot(path=str(screenshots / "recommend-llm-inference-48gb.png"), full_page=True)

    # The URL is the view: loading it again shows the same bars.
    shared = browser.new_page()
    shared.goto(page.url)
    assert _bars(shared) == bars
    shared.set_viewport_size({"width": 390, "height": 844})
    # On a phone nothing is cut off: no part of the page is wider than the screen, and
    # each GPU of the ranking is a card with its columns labelled.
    assert shared.evaluate("document.documentElement.scrollWidth") <= 390
    widths = shared.eval_on_selector_all(
        "svg.chart, table.results", "els => els.map(e => e.getBoundingClientRect().right)"
    )
    assert widths and max(widths) <= 390
    assert shared.locator("table.results td[data-label='Build cost']").first.is_visible()
    shared.screenshot(path=str(screenshots / "recommend-mobile.png"), full_page=True)


def test_gpu_page_and_tco_form(server, browser, screenshots):
    page = browser.new_page()
    page.goto(f"{server}/?task=cv&memory_gb=24")
    first = page.locator("table.results tbody tr").first
    gpu = first.get_attribute("data-gpu")
    first.locator("th a").click()
    page.wait_for_url(f"{server}/gpus/{gpu}")
    assert load_catalog().by_id[gpu].name in page.locator("h1").inner_text()
    assert page.locator("#chart-price-history").is_visible()
    # One prediction per /recommend task.
    assert page.locator("table.predictions tbody tr").count() == len(TASK_NAMES)
    page.screenshot(path=str(screenshots / f"gpu-{gpu}.png"), full_page=True)

    page.goto(f"{server}/tco")
    page.select_option("#gpu", "rtx-4090")
    page.fill("#utilization", "0.5")
    page.click("#tco-form button[type=submit]")
    page.wait_for_url(re.compile(r"/tco\?.*utilization=0\.5"))
    assert "break" in page.locator("#tco-result").inner_text()
    # One drawing shown (the wide one on a desktop), with one line of each.
    assert page.locator("svg.cost:visible").count() == 1
    assert page.locator("#chart-cost path.line.own").is_visible()
    page.screenshot(path=str(screenshots / "tco.png"), full_page=True)


def test_quotes_form(server, browser, screenshots):
    page = browser.new_page()
    page.goto(f"{server}/quotes")
    assert page.locator("#standard-quotes tbody tr").count() > 0
    page.select_option("#gpu", "rtx-3090")
    page.fill("#count", "4")
    page.select_option("#condition", "used")
    page.select_option("#deployment", "workstation")
    page.click("#quote-form button[type=submit]")
    page.wait_for_url(re.compile(r"/quotes\?gpu=rtx-3090&count=4"))
    result = page.locator("#quote-result")
    topics = page.eval_on_selector_all("#quote-warnings li", "els => els.map(e => e.dataset.topic)")
    assert {"power", "cooling"} <= set(topics)
    assert "310 W per GPU" in page.inner_text("#power-limit")
    categories = page.eval_on_selector_all(
        "table.bom tbody tr", "els => els.map(e => e.dataset.category)"
    )
    assert categories[0] == "gpu" and "cooling" in categories
    # The export link serves the bill of materials of this very quote.
    quote_id = result.get_attribute("data-quote")
    csv_url = page.get_attribute("#quote-csv", "href")
    assert csv_url == f"/quotes/{quote_id}?format=csv"
    exported = httpx.get(f"{server}{csv_url}", timeout=10)
    assert exported.headers["content-type"].startswith("text/csv")
    assert exported.text.splitlines()[-1].startswith("total,total,")
    page.screenshot(path=str(screenshots / "quotes.png"), full_page=True)


def test_price_check_on_the_quote_page(server, browser, screenshots):
    page = browser.new_page()
    page.goto(f"{server}/quotes")
    page.select_option("#check-gpu", "rtx-3090")
    page.fill("#check-usd", "1207")
    page.select_option("#check-condition", "used")
    page.fill("#check-count", "4")
    page.click("#check-form button[type=submit]")
    page.wait_for_url(re.compile(r"/quotes/check\?gpu=rtx-3090&usd=1207&condition=used&count=4"))
    body = {"gpu": "rtx-3090", "usd": 1207, "condition": "used", "count": 4, "task": "cv"}
    answer = httpx.post(f"{server}/prices/check", json=body, timeout=10).json()
    result = page.locator("#check-result")
    assert result.get_attribute("data-verdict") == answer["verdict"] == "fair"
    kinds = page.eval_on_selector_all(
        "#check-alternatives tbody tr", "els => els.map(e => [e.dataset.kind, e.dataset.gpu])"
    )
    assert kinds == [[a["kind"], a["gpu"]] for a in answer["alternatives"]]
    assert answer["evidence"]["series"] in page.inner_text("#check-evidence")
    page.screenshot(path=str(screenshots / "price-check.png"), full_page=True)
    # On a phone nothing is cut off: the page is no wider than the screen and each
    # alternative is a card with its columns labelled.
    phone = browser.new_page()
    phone.set_viewport_size({"width": 390, "height": 844})
    phone.goto(page.url)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    rights = phone.eval_on_selector_all(
        "#price-check, #check-alternatives, #check-evidence",
        "els => els.map(e => e.getBoundingClientRect().right)",
    )
    assert len(rights) == 3 and max(rights) <= 390
    assert phone.locator("#check-alternatives td[data-label='Same money buys']").first.is_visible()
    phone.screenshot(path=str(screenshots / "price-check-mobile.png"), full_page=True)


# --- on a phone ------------------------------------------------------------------------

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
MIN_TEXT_PX = 11
# Pages with charts (how many are shown) or forms, and the longest labels the bundle gives
# them: a 64-GPU ten-year TCO has seven-digit totals, the RTX 3090 eight price series.
READABLE_PAGES = [
    # Perf per dollar, speed and cost per unit of work.
    ("/?task=cv&memory_gb=24", 3),
    ("/?task=llm-inference&memory_gb=48&condition=cloud&sort=performance", 3),
    ("/gpus/rtx-3090", 1),
    ("/tco?gpu=a100-80gb-sxm&count=64&years=10", 1),
    ("/tco?gpu=rtx-4090&utilization=0.5", 1),
    ("/quotes", 0),
]

# The shown charts' text: its rendered size (the font size in user units times the
# drawing's scale) and whether its box leaves the drawing's; and pairs of texts of one
# chart whose boxes overlap.
CHART_TEXT_JS = """() => {
  const shown = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const charts = [...document.querySelectorAll('svg.chart')].filter(shown);
  const texts = [], overlaps = [];
  for (const svg of charts) {
    const box = svg.getBoundingClientRect();
    const boxes = [];
    for (const t of svg.querySelectorAll('text')) {
      const r = t.getBoundingClientRect();
      const px = parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
      const out = r.left < box.left - 0.5 || r.right > box.right + 0.5
        || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5;
      texts.push({chart: svg.id, text: t.textContent, px: px, out: out});
      for (const [other, o] of boxes) {
        const w = Math.min(r.right, o.right) - Math.max(r.left, o.left);
        const h = Math.min(r.bottom, o.bottom) - Math.max(r.top, o.top);
        if (w > 1 && h > 2) overlaps.push([svg.id, other, t.textContent]);
      }
      boxes.push([t.textContent, r]);
    }
  }
  return {charts: charts.map(c => c.id), texts: texts, overlaps: overlaps};
}"""

# Whether a select shows its options whole: the width the browser gives a copy of it
# sized to its content (the longest option, padding and arrow) against its own width.
# scrollWidth alone cannot tell: Chromium reports a select's scrollWidth equal to its
# clientWidth even when the chosen option is cut off.
SELECTS_JS = """() => [...document.querySelectorAll('select')]
  .filter(s => s.getBoundingClientRect().width > 0)
  .map(s => {
    const copy = s.cloneNode(true);
    copy.removeAttribute('id');
    copy.removeAttribute('name');
    copy.style.width = 'auto';
    copy.style.position = 'absolute';
    copy.style.visibility = 'hidden';
    s.parentElement.appendChild(copy);
    const needed = copy.getBoundingClientRect().width;
    copy.remove();
    return {id: s.id, needed: needed, width: s.getBoundingClientRect().width,
            scroll: s.scrollWidth, client: s.clientWidth};
  })"""

# A price-history series as drawn, in the chart and in the legend: its colour (a line's
# stroke, a single observation's fill) and its dash pattern.
SERIES_JS = """() => {
  const look = e => {
    const style = getComputedStyle(e);
    const line = e.classList.contains('line');
    return [line ? style.stroke : style.fill, line ? style.strokeDasharray : 'marker'];
  };
  const chart = [...document.querySelectorAll('svg.chart.lines')]
    .find(e => e.getBoundingClientRect().width > 0);
  return {
    legend: [...document.querySelectorAll('.series-legend li')].map(li =>
      [li.dataset.series, ...look(li.querySelector('.swatch .line, .swatch .point'))]),
    chart: [...chart.querySelectorAll('g.series')].map(g =>
      [g.dataset.series, ...look(g.querySelector('.line, .point'))]),
  };
}"""


def _readable(page, width: int, charts: int = 0) -> list[str]:
    """What is wrong with the page at this width, as readable messages."""
    problems = []
    if page.evaluate("document.documentElement.scrollWidth") > width:
        problems.append("the page is wider than the screen")
    found = page.evaluate(CHART_TEXT_JS)
    if len(found["charts"]) != charts:  # one drawing of each chart, never none or both
        problems.append(f"charts shown: {found['charts']}")
    for t in found["texts"]:
        if t["px"] < MIN_TEXT_PX:
            problems.append(f"{t['chart']}: {t['text']!r} at {t['px']:.1f} px")
        if t["out"]:
            problems.append(f"{t['chart']}: {t['text']!r} overflows the chart")
    problems += [f"{chart}: {a!r} overlaps {b!r}" for chart, a, b in found["overlaps"]]
    for s in page.evaluate(SELECTS_JS):
        if s["needed"] > s["width"] + 0.5 or s["scroll"] > s["client"]:
            problems.append(f"select #{s['id']} needs {s['needed']:.0f} px, has {s['width']:.0f}")
    return problems


def test_pages_are_readable_on_a_phone(server, browser, screenshots):
    """At 390 px (and on a desktop): chart text >= 11 px, inside its chart and clear of
    the other labels, every select wide enough for its longest option, the page no wider
    than the screen. Then the price history's legend: a look of its own for each series,
    the same as the line it names."""
    page = browser.new_page()
    # The select measure sees a cut-off select (so an empty list below means something).
    page.set_viewport_size(PHONE)
    page.goto(f"{server}/tco")
    page.eval_on_selector("#gpu", "s => { s.style.flex = 'none'; s.style.width = '80px'; }")
    assert any("select #gpu" in p for p in _readable(page, PHONE["width"]))
    for viewport in (PHONE, DESKTOP):
        page.set_viewport_size(viewport)
        for path, charts in READABLE_PAGES:
            page.goto(f"{server}{path}")
            assert _readable(page, viewport["width"], charts) == [], (viewport, path)
        if viewport is PHONE:
            page.goto(f"{server}/tco?gpu=a100-80gb-sxm&count=64&years=10")
            page.screenshot(path=str(screenshots / "tco-mobile.png"), full_page=True)
            page.goto(f"{server}/quotes")
            page.screenshot(path=str(screenshots / "quotes-mobile.png"), full_page=True)

    for viewport in (PHONE, DESKTOP):
        page.set_viewport_size(viewport)
        page.goto(f"{server}/gpus/rtx-3090")
        drawn = page.evaluate(SERIES_JS)
        legend, chart = drawn["legend"], drawn["chart"]
        assert len(legend) >= 8 and legend == chart
        colours = [colour for _, colour, _ in legend[:8]]
        assert len(set(colours)) == len(colours), colours
        assert len({(colour, dash) for _, colour, dash in legend}) == len(legend)
        if viewport is PHONE:
            page.screenshot(path=str(screenshots / "gpu-rtx-3090-mobile.png"), full_page=True)
    # Own and rent: two colours, and rent dashed besides.
    page.goto(f"{server}/tco?gpu=rtx-4090")
    own, rent = (
        page.eval_on_selector(
            f"#chart-cost path.line.{kind}",
            "e => [getComputedStyle(e).stroke, getComputedStyle(e).strokeDasharray]",
        )
        for kind in ("own", "cloud")
    )
    assert own[0] != rent[0] and own[1] == "none" != rent[1]


def test_works_without_javascript(server, tmp_path):
    manager, context = _context(tmp_path, javascript=False)
    try:
        page = context.new_page()
        page.goto(f"{server}/?task=cv&memory_gb=24")
        assert len(_bars(page)) > 0
        page.fill("#memory_gb", "40")
        page.click("#query button[type=submit]")  # without the script: a plain GET form
        page.wait_for_url(re.compile(r"memory_gb=40"))
        bars = _bars(page)
        assert bars and all(memory >= 40 for _, memory in bars)
        assert page.locator("table.results tbody tr").count() == len(bars)
    finally:
        context.close()
        manager.__exit__(None, None, None)


def test_api_docs_render_with_no_network_beyond_the_server(server, browser):
    """Swagger UI and ReDoc come from the service itself: with every request to any other
    host refused, both still render the API's operations."""
    outside: list[tuple[str, str]] = []

    def only_local(route):
        if route.request.url.startswith(server):
            route.continue_()
        else:
            outside.append((route.request.resource_type, route.request.url))
            route.abort()

    browser.route("**/*", only_local)
    page = browser.new_page()
    page.goto(f"{server}/docs")
    page.wait_for_selector(".opblock-summary-path", state="attached")
    paths = page.eval_on_selector_all(
        ".opblock-summary-path", "els => els.map(e => e.dataset.path || e.textContent)"
    )
    assert any("/recommend" in p for p in paths)
    page.goto(f"{server}/redoc")
    page.wait_for_selector("[data-section-id]", state="attached")
    assert "/recommend" in page.content()
    # ReDoc's bundle links its "API docs by Redocly" footer logo; an image, cosmetic, and
    # refused here like any other outside request. No script, style or data is outside.
    assert all(kind == "image" for kind, _ in outside), outside

"""The pages in a real browser: Debian's Chromium driven by Playwright, against uvicorn.

Slow (a browser and a server); kept to five journeys. Screenshots go to a temporary
directory; `make screenshots` writes them to docs/screenshots/.
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
    assert page.locator("svg.cost .line.own").count() == 1
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

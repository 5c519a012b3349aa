"""Fetch layer and adapters together over real local HTTP, as a scrape run would use them."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

import pytest

from services.scraper.errors import LayoutChanged
from services.scraper.fetch import Fetcher
from services.scraper.sources import azure_prices, ebay, lambda_cloud
from tests.services.scraper.conftest import FakeClock, make_settings
from tests.services.scraper.fixture_server import SAMPLES_DIR, FixtureServer, reply, sample_file
from tests.services.scraper.golden import to_jsonable

OBSERVED_AT = datetime(2026, 11, 5, 12, 0, tzinfo=UTC)


def fetch_text(server: FixtureServer, clock: FakeClock, path: str, **kwargs):
    async def go():
        async with Fetcher(make_settings(), clock=clock, sleep=clock.sleep) as fetcher:
            result = await fetcher.fetch(server.url(path), **kwargs)
            return result.text, result.url

    return asyncio.run(go())


def test_ebay_search_page_fetched_and_parsed(server: FixtureServer, clock: FakeClock) -> None:
    server.route("/robots.txt", reply(200, "User-agent: *\nDisallow: /itm/*/watch\n"))
    server.route("/sch/i.html", sample_file("ebay", "search_active.html"))
    url = ebay.search_url(server.base_url, "rtx 4090")
    text, final_url = fetch_text(server, clock, url.removeprefix(server.base_url))
    listings = ebay.parse(text, final_url)
    expected = json.loads((SAMPLES_DIR / "ebay/search_active.expected.json").read_text())
    # Same listings as the golden file, with URLs on the server's origin.
    for item in expected:
        item["url"] = item["url"].replace("https://www.ebay.com", server.base_url)
    assert to_jsonable(listings) == expected
    [request] = server.requests_to("/sch/i.html")
    assert "_nkw=rtx+4090" in request.query


@pytest.mark.parametrize("page", ["malformed.html", "layout_changed.html"])
def test_broken_pages_raise_layout_changed(
    server: FixtureServer, clock: FakeClock, page: str
) -> None:
    server.route("/sch/i.html", sample_file("ebay", page))
    text, url = fetch_text(server, clock, "/sch/i.html?_nkw=rtx+4090")
    with pytest.raises(LayoutChanged):
        ebay.parse(text, url)


def test_azure_pages_followed_through_next_page_link(
    server: FixtureServer, clock: FakeClock
) -> None:
    page1 = json.loads((SAMPLES_DIR / "azure_prices/page1.json").read_text())
    page1["NextPageLink"] = server.url("/api/retail/prices/page2")
    server.route("/api/retail/prices", reply(200, json.dumps(page1)))
    server.route("/api/retail/prices/page2", sample_file("azure_prices", "page2.json"))

    async def go():
        listings = []
        url: str | None = azure_prices.prices_url(server.base_url)
        async with Fetcher(make_settings(), clock=clock, sleep=clock.sleep) as fetcher:
            while url is not None:
                result = await fetcher.fetch(url, check_robots=False)
                listings += azure_prices.parse(result.body, url, observed_at=OBSERVED_AT)
                url = azure_prices.next_page_url(result.body, url)
        return listings

    listings = asyncio.run(go())
    assert len(listings) == 6
    assert {item.instance_type for item in listings} >= {
        "Standard_ND96isr_H100_v5",
        "Standard_NC6s_v3",
    }


def test_lambda_api_key_is_sent(server: FixtureServer, clock: FakeClock) -> None:
    server.route("/api/v1/instance-types", sample_file("lambda_cloud", "instance_types.json"))
    text, url = fetch_text(
        server,
        clock,
        "/api/v1/instance-types",
        headers=lambda_cloud.request_headers("secret-key"),
        check_robots=False,
    )
    assert len(lambda_cloud.parse(text, url, observed_at=OBSERVED_AT)) == 5
    [request] = server.requests_to("/api/v1/instance-types")
    assert request.header("Authorization") == "Bearer secret-key"
